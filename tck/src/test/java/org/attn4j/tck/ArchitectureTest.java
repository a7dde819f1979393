package org.attn4j.tck;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import org.attn4j.archrules.TckRules;
import org.attn4j.archrules.PackageRules;

@AnalyzeClasses(packages = "org.attn4j.tck", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchTests TCK = ArchTests.in(TckRules.class);

    @ArchTest
    static final ArchTests PACKAGES = ArchTests.in(PackageRules.class);
}
