package org.attn4j.cli;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import org.attn4j.archrules.ModelUserRules;

@AnalyzeClasses(packages = "org.attn4j.cli", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchTests MODEL_USERS = ArchTests.in(ModelUserRules.class);
}
