/**
 * The architecture of attn4j as ArchUnit rules, written once. Each module applies the rules that concern it:
 * <pre>{@code
 * @AnalyzeClasses(packages = "org.attn4j.backend.ejml", importOptions = ImportOption.DoNotIncludeTests.class)
 * class ArchitectureTest {
 *     @ArchTest
 *     static final ArchTests BACKEND = ArchTests.in(BackendRules.class);
 * }
 * }</pre>
 */
package org.attn4j.archrules;
