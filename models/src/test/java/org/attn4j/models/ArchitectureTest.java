package org.attn4j.models;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import org.attn4j.archrules.ModelsRules;

@AnalyzeClasses(packages = "org.attn4j.models", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchTests MODELS = ArchTests.in(ModelsRules.class);
}
