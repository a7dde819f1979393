package org.attn4j.archrules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Rules for the {@code server} module. Apply with {@code ArchTests.in(ServerRules.class)}. */
public final class ServerRules {

    /** The server serves models on whatever backend they were loaded on. */
    @ArchTest
    public static final ArchRule SERVER_DEPENDS_ON_MODELS_AND_API_ONLY = noClasses()
            .that().resideInAPackage("org.attn4j.server..")
            .should().dependOnClassesThat()
            .resideInAnyPackage("org.attn4j.backend..", "org.attn4j.tck..", "org.attn4j.cli..",
                    "org.attn4j.bench..", "org.attn4j.spark..")
            .because("one server runs on every backend, so it knows only models and the api; the cli wraps it");

    /** The server is user code of the api. */
    @ArchTest
    public static final ArchRule SERVER_DOES_NOT_USE_THE_SPI = noClasses()
            .that().resideInAPackage("org.attn4j.server..")
            .should().dependOnClassesThat().resideInAPackage("org.attn4j.api.spi..")
            .because("org.attn4j.api.spi holds what backend authors reuse; a user of the api never needs it");

    /** Only the types a user starts a server with are public; endpoints, batching and JSON stay inside. */
    @ArchTest
    public static final ArchRule ONLY_THE_ENTRY_POINTS_ARE_PUBLIC = classes()
            .that().resideInAPackage("org.attn4j.server..").and().arePublic()
            .should().haveNameMatching("org\\.attn4j\\.server\\.(OpenAiServer|ServerOptions|ServedModels)")
            .because("a small public surface can grow without breaking callers");

    private ServerRules() {
    }
}
