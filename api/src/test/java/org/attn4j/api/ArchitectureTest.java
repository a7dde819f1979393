package org.attn4j.api;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import org.attn4j.archrules.ApiRules;
import org.attn4j.archrules.PackageRules;

@AnalyzeClasses(packages = "org.attn4j.api", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchTests API = ArchTests.in(ApiRules.class);

    @ArchTest
    static final ArchTests PACKAGES = ArchTests.in(PackageRules.class);
}
