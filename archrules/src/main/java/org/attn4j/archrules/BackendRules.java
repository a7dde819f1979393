package org.attn4j.archrules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Rules for every {@code backend-*} module. Apply with {@code ArchTests.in(BackendRules.class)}. */
public final class BackendRules {

    /** Backends never see one another. */
    @ArchTest
    public static final ArchRule BACKENDS_DO_NOT_DEPEND_ON_EACH_OTHER = slices()
            .matching("org.attn4j.backend.(*)..")
            .should().notDependOnEachOther()
            .because("a backend that calls another would give that backend's numbers under its own name");

    /** Backends depend on the api and their own library only. */
    @ArchTest
    public static final ArchRule BACKENDS_DO_NOT_DEPEND_ON_MODELS_TCK_OR_CLI = noClasses()
            .that().resideInAPackage("org.attn4j.backend..")
            .should().dependOnClassesThat()
            .resideInAnyPackage("org.attn4j.models..", "org.attn4j.tck..", "org.attn4j.cli..")
            .because("the arrows point from models, tck and cli to the api, never into a backend and back");

    /** The provider is the only public class of a backend. */
    @ArchTest
    public static final ArchRule ONLY_THE_PROVIDER_IS_PUBLIC = classes()
            .that().resideInAPackage("org.attn4j.backend..")
            .and().areNotAssignableTo("org.attn4j.api.BackendProvider")
            .and().areTopLevelClasses()
            .should().notBePublic()
            .because("users reach a backend through the api; its provider is all they may ever name");

    private BackendRules() {
    }
}
