package org.attn4j.archrules;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Rules for every module. Apply with {@code ArchTests.in(PackageRules.class)}. */
public final class PackageRules {

    /** No two packages depend on each other, directly or around a loop. */
    @ArchTest
    public static final ArchRule NO_PACKAGE_CYCLES = slices()
            .matching("org.attn4j.(**)")
            .should().beFreeOfCycles()
            .because("arrows that point one way let a reader learn a package from its dependencies alone, and let"
                    + " the api be used without the spi that only implementers need");

    private PackageRules() {
    }
}
