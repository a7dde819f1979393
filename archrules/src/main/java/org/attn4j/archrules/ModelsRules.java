package org.attn4j.archrules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Rules for the {@code models} module. Apply with {@code ArchTests.in(ModelsRules.class)}. */
public final class ModelsRules {

    /** Models run on whatever backend they are given. */
    @ArchTest
    public static final ArchRule MODELS_DO_NOT_DEPEND_ON_A_BACKEND = noClasses()
            .that().resideInAPackage("org.attn4j.models..")
            .should().dependOnClassesThat()
            .resideInAnyPackage("org.attn4j.backend..", "org.attn4j.tck..", "org.attn4j.cli..")
            .because("a layer must give the same numbers on every backend, so it may only use the api");

    /** Models are user code: they need nothing that only implementers of a backend need. */
    @ArchTest
    public static final ArchRule MODELS_DO_NOT_USE_THE_SPI = noClasses()
            .that().resideInAPackage("org.attn4j.models..")
            .should().dependOnClassesThat().resideInAPackage("org.attn4j.api.spi..")
            .because("org.attn4j.api.spi holds what backend authors reuse; a user of the api never needs it");

    private ModelsRules() {
    }
}
