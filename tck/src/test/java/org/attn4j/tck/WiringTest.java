package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.backend.ejml.EjmlBackendProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WiringTest {

    @TempDir
    Path dir;

    private static CaseResult result(TckReport report, String testName) {
        return report.results().stream().filter(r -> r.testName().equals(testName)).findFirst()
                .orElseThrow(() -> new AssertionError(testName + " did not run: " + report.results().stream()
                        .map(CaseResult::testName).toList()));
    }

    @Test
    void anInTreeProviderIsFoundByServiceLoaderInItsOwnJarAndDeclaresWhatItDoes() {
        TckReport report = TckRunner.run(new EjmlBackendProvider(), TestBackends.only(Kind.WIRING));

        assertEquals(0, report.count(Status.FAILED), report.toTable());
        assertEquals(List.of("required_wiring_found_by_service_loader[provider]", "required_wiring_name[provider]",
                "required_wiring_priority[provider]", "required_wiring_availability[provider]",
                "required_wiring_capabilities_F64[capabilities]", "required_wiring_capabilities_dropout[capabilities]",
                "required_wiring_capabilities_attention_weights[capabilities]",
                "required_wiring_capabilities_weight_f16[capabilities]",
                "required_wiring_capabilities_weight_bf16[capabilities]",
                "required_wiring_capabilities_weight_q8_0[capabilities]",
                "required_wiring_capabilities_weight_q4_0[capabilities]",
                "required_wiring_capabilities_weight_q4_1[capabilities]",
                "required_wiring_capabilities_weight_q5_0[capabilities]",
                "required_wiring_capabilities_weight_q5_1[capabilities]",
                "required_wiring_capabilities_weight_q2_k[capabilities]",
                "required_wiring_capabilities_weight_q3_k[capabilities]",
                "required_wiring_capabilities_weight_q4_k[capabilities]",
                "required_wiring_capabilities_weight_q5_k[capabilities]",
                "required_wiring_capabilities_weight_q6_k[capabilities]",
                "required_wiring_capabilities_weight_iq4_nl[capabilities]",
                "required_wiring_capabilities_weight_iq4_xs[capabilities]", "required_wiring_api_signature[api]"),
                report.results().stream().map(CaseResult::testName).toList());
        assertEquals(TckReport.Verdict.NOT_RUN, report.verdicts().get("ejml"), "wiring alone is no conformance");
    }

    @Test
    void aProviderWithoutItsServiceFileIsNotConformantWhateverElsePasses() {
        TckReport report = TckRunner.run(TestBackends.minimal().provider(), TestBackends.only(Kind.WIRING, Kind.LAW));

        CaseResult found = result(report, "required_wiring_found_by_service_loader[provider]");
        assertEquals(Status.FAILED, found.status());
        assertTrue(found.message().contains("ServiceLoader finds no provider of class ")
                && found.message().contains("META-INF/services/org.attn4j.api.BackendProvider")
                && found.message().contains("ejml (org.attn4j.backend.ejml.EjmlBackendProvider)"), found.message());
        assertEquals(1, report.count(Status.FAILED), report.toTable());
        assertEquals(TckReport.Verdict.NOT_CONFORMANT, report.verdicts().get("minimal"));
    }

    @Test
    void aBackendNamedButNotFoundFailsItsWiringAndRunsNothingElse() {
        TckReport report = TckRunner.create("nosuch", TestBackends.only(Kind.WIRING, Kind.LAW)).run();

        CaseResult found = result(report, "required_wiring_found_by_service_loader[provider]");
        assertEquals(Status.FAILED, found.status());
        assertTrue(found.message().contains("ServiceLoader finds no provider named 'nosuch' on the class path (it"
                + " finds [ejml (org.attn4j.backend.ejml.EjmlBackendProvider), nd4j ("), found.message());
        assertTrue(report.results().stream().filter(r -> r.kind() == Kind.LAW)
                .allMatch(r -> r.status() == Status.SKIPPED && r.message().contains("finds no provider named")));
        assertEquals(TckReport.Verdict.NOT_CONFORMANT, report.verdicts().get("nosuch"));
    }

    @Test
    void undeclaredFeaturesThatWorkAreNotedAndADeclaredOneThatFailsFails() {
        TckReport minimal = TckRunner.run(TestBackends.minimal().provider(), TestBackends.only(Kind.WIRING));
        CaseResult f64 = result(minimal, "required_wiring_capabilities_F64[capabilities]");
        assertEquals(Status.PASSED, f64.status());
        assertTrue(f64.message().startsWith("minimal does not declare F64, yet it works: declare it"
                + " (Capabilities.builder(...).dtypes(..., DType.F64))"), f64.message());
        assertTrue(minimal.toTable().contains("noted: minimal does not declare dropout, yet it works"),
                minimal.toTable());

        ForwardingBackend brokenDropout = TestBackends.onEjml("no-dropout", TestBackends.FULL,
                ops -> new ForwardingBackend.ForwardingOps((ForwardingBackend.ForwardingOps) ops) {
                    @Override
                    public Tensor dropout(Tensor x, double p, long seed) {
                        throw new UnsupportedOperationException("dropout is not implemented");
                    }
                });
        TckReport declared = TckRunner.run(brokenDropout.provider(), TestBackends.only(Kind.WIRING));
        CaseResult dropout = result(declared, "required_wiring_capabilities_dropout[capabilities]");
        assertEquals(Status.FAILED, dropout.status());
        assertEquals("no-dropout declares dropout (features(Capabilities.Feature.DROPOUT)), but trying it threw"
                + " java.lang.UnsupportedOperationException: dropout is not implemented", dropout.message());
    }

    @Test
    void anAvailabilityCheckThatThrowsFailsTheWiringInsteadOfPassingForUnavailable() {
        BackendProvider throwing = new JarBackendProvider("throwing") {
            @Override
            public Availability availability() {
                throw new UnsatisfiedLinkError("no libthrowing in java.library.path");
            }
        };

        TckReport report = TckRunner.run(throwing, TestBackends.only(Kind.WIRING, Kind.LAW));

        CaseResult availability = result(report, "required_wiring_availability[provider]");
        assertEquals(Status.FAILED, availability.status());
        assertTrue(availability.message().startsWith("provider throwing: availability() threw"
                + " java.lang.UnsatisfiedLinkError: no libthrowing"), availability.message());
        assertEquals(TckReport.Verdict.NOT_CONFORMANT, report.verdicts().get("throwing"));
    }

    @Test
    void aNameUsersCannotTypeFails() {
        ForwardingBackend spaced = TestBackends.onEjml("My Backend", TestBackends.FULL, ops -> ops);

        CaseResult name = result(TckRunner.run(spaced.provider(), TestBackends.only(Kind.WIRING)),
                "required_wiring_name[provider]");

        assertEquals(Status.FAILED, name.status());
        assertTrue(name.message().contains("name() is 'My Backend'; it must be a short lower-case name"),
                name.message());
    }

    @Test
    void aThirdPartyJarWithItsServiceFileIsFoundThroughTheContextClassLoader() throws Exception {
        Path jar = ThirdPartyJars.providerJar(dir, "loopy", true);

        TckReport report = ThirdPartyJars.withJars(List.of(jar),
                () -> TckRunner.create("loopy", TestBackends.only(Kind.WIRING)).run());

        assertEquals(0, report.count(Status.FAILED), report.toTable());
        int weightTypes = WeightType.values().length - 3;
        assertEquals(8 + weightTypes, report.count(Status.PASSED), report.toTable());
    }

    @Test
    void aServiceFileOutsideTheProvidersJarIsAWiringFailure() throws Exception {
        Path classes = ThirdPartyJars.providerJar(dir, "split", false);
        Path services = ThirdPartyJars.serviceFileJar(dir, "split-services", "com.example.split.Provider");

        TckReport report = ThirdPartyJars.withJars(List.of(classes, services),
                () -> TckRunner.create("split", TestBackends.only(Kind.WIRING)).run());

        CaseResult found = result(report, "required_wiring_found_by_service_loader[provider]");
        assertEquals(Status.FAILED, found.status());
        assertTrue(found.message().contains("com.example.split.Provider comes from " + classes.toRealPath())
                && found.message().contains("split-services.jar")
                && found.message().contains("a user who adds the backend's jar alone will not find it"),
                found.message());
    }

    @Test
    void aGivenBackendIsCheckedByName() {
        Backend ejml = new EjmlBackendProvider().create();
        TckReport report = TckRunner.run(ejml, TestBackends.only(Kind.WIRING));

        CaseResult found = result(report, "required_wiring_found_by_service_loader[provider]");
        assertEquals(Status.PASSED, found.status(), report.toTable());
        assertTrue(found.message().startsWith("the kit was handed a Backend, not its provider"), found.message());
    }
}
