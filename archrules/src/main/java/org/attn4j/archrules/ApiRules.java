package org.attn4j.archrules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Rules for the {@code api} module. Apply with {@code ArchTests.in(ApiRules.class)}. */
public final class ApiRules {

    /** The api depends on the JDK alone. */
    @ArchTest
    public static final ArchRule API_DEPENDS_ON_THE_JDK_ALONE = classes()
            .that().resideInAPackage("org.attn4j.api..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.attn4j.api..")
            .because("a user must be able to write against the api without pulling in any library or backend");

    /** What users see never reaches into what only implementers need. */
    @ArchTest
    public static final ArchRule API_DOES_NOT_DEPEND_ON_THE_SPI = noClasses()
            .that().resideInAPackage("org.attn4j.api")
            .should().dependOnClassesThat().resideInAPackage("org.attn4j.api.spi..")
            .because("org.attn4j.api.spi builds on org.attn4j.api, so an arrow back would make the two one package");

    private ApiRules() {
    }
}
