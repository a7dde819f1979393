package org.attn4j.archrules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Rules for the {@code tck} module. Apply with {@code ArchTests.in(TckRules.class)}. */
public final class TckRules {

    /** The kit reaches backends through the api only. */
    @ArchTest
    public static final ArchRule TCK_DOES_NOT_DEPEND_ON_A_BACKEND_OR_THE_CLI = noClasses()
            .that().resideInAPackage("org.attn4j.tck..")
            .should().dependOnClassesThat().resideInAnyPackage("org.attn4j.backend..", "org.attn4j.cli..")
            .because("the kit judges every backend, third-party ones included, through the api alone");

    private TckRules() {
    }
}
