package org.attn4j.backend.nd4j;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import org.attn4j.archrules.BackendRules;

@AnalyzeClasses(packages = "org.attn4j.backend.nd4j", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchTests BACKEND = ArchTests.in(BackendRules.class);
}
