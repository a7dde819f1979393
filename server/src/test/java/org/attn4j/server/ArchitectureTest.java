package org.attn4j.server;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import org.attn4j.archrules.ModelUserRules;
import org.attn4j.archrules.PackageRules;
import org.attn4j.archrules.ServerRules;

@AnalyzeClasses(packages = "org.attn4j.server", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchTests MODEL_USERS = ArchTests.in(ModelUserRules.class);

    @ArchTest
    static final ArchTests SERVER = ArchTests.in(ServerRules.class);

    @ArchTest
    static final ArchTests PACKAGES = ArchTests.in(PackageRules.class);
}
