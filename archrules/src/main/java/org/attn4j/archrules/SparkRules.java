package org.attn4j.archrules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Rules for the {@code spark} module. Apply with {@code ArchTests.in(SparkRules.class)}. */
public final class SparkRules {

    /** An executor uses whichever backend its class path has, found through the api. */
    @ArchTest
    public static final ArchRule SPARK_DEPENDS_ON_MODELS_AND_API_ONLY = noClasses()
            .that().resideInAPackage("org.attn4j.spark..")
            .should().dependOnClassesThat()
            .resideInAnyPackage("org.attn4j.backend..", "org.attn4j.tck..", "org.attn4j.cli..",
                    "org.attn4j.bench..")
            .because("the module runs on every backend an executor may have, so it knows only models and the api");

    private SparkRules() {
    }
}
