package org.attn4j.spark;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import org.attn4j.archrules.ModelUserRules;
import org.attn4j.archrules.SparkRules;

@AnalyzeClasses(packages = "org.attn4j.spark", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchTests MODEL_USERS = ArchTests.in(ModelUserRules.class);

    @ArchTest
    static final ArchTests SPARK = ArchTests.in(SparkRules.class);
}
