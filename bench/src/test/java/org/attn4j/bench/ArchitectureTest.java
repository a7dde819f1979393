package org.attn4j.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

@AnalyzeClasses(packages = "org.attn4j.bench", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule THE_JAR_DEPENDS_ON_THE_JDK_AND_JACKSON_CORE_ALONE = classes()
            .should().onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "org.attn4j.bench", "com.fasterxml.jackson.core..")
            .because("ONNX Runtime, JMH and the backends are test-scoped: the published jar needs only jackson-core,"
                    + " the one JSON library of the project");
}
