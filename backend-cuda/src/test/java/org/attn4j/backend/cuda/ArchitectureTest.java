package org.attn4j.backend.cuda;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import org.attn4j.archrules.BackendRules;
import org.attn4j.archrules.PackageRules;

@AnalyzeClasses(packages = "org.attn4j.backend.cuda", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchTests BACKEND = ArchTests.in(BackendRules.class);

    @ArchTest
    static final ArchTests PACKAGES = ArchTests.in(PackageRules.class);

    @ArchTest
    static final ArchRule PROVIDER_TOUCHES_JCUDA_ONLY_THROUGH_THE_PROBE = noClasses()
            .that().haveSimpleName("CudaBackendProvider").or().haveSimpleName("ProbeDiagnosis")
            .should().dependOnClassesThat().resideInAPackage("jcuda..")
            .because("availability() must catch the LinkageError of a missing libcuda.so.1, so no JCuda class may"
                    + " load before the probe runs inside its try block");
}
