package org.attn4j.tck;

import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;

/**
 * How the backend is wired into the api, checked as {@code Backends} uses it:
 * <ul>
 *   <li>{@code wiring_found_by_service_loader}: {@link java.util.ServiceLoader} finds the provider's class through
 *       the class path, and a service file in the provider's own jar (or class folder) lists it, so that a user who
 *       adds that jar alone finds the backend;</li>
 *   <li>{@code wiring_name}: a short lower-case name ({@code [a-z0-9][a-z0-9._-]*}), the same on every call, that
 *       no other provider on the class path has;</li>
 *   <li>{@code wiring_priority}: the same on every call, and not {@link Integer#MIN_VALUE} or
 *       {@link Integer#MAX_VALUE} (which would put it out of reach of every other backend's ordering);</li>
 *   <li>{@code wiring_availability}: {@code availability()} never throws and answers the same twice; an available
 *       provider creates a backend of the same name and the same {@link Capabilities};</li>
 *   <li>{@code wiring_capabilities_weight_<type>}: each weight type the backend declares is held in about its
 *       own bytes, not widened (all but F32, F64 and I8, which every backend declares: the spi holds I8);</li>
 *   <li>{@code wiring_capabilities_<feature>}: each optional dtype or feature the backend declares works (a probe
 *       that fails is a failure); one it does not declare but that works is noted, since declaring it would let the
 *       kit check it;</li>
 *   <li>{@code wiring_api_signature}: the api on the class path has every public member the kit was built against
 *       ({@link ApiSignature}).</li>
 * </ul>
 * All but the capability probes run also when the backend is unavailable here.
 */
final class WiringSuite {
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");
    private static final String PROVIDER = "provider";
    private static final String CAPABILITIES = "capabilities";

    private WiringSuite() {
    }

    /** A call that shows whether an optional feature works: null if it does, else what went wrong. */
    private interface Probe {
        String run(Scope scope);
    }

    /** An optional feature, how to ask {@link Capabilities} about it, and how to try it. */
    private record Capability(String id, Feature feature, Function<Capabilities, Boolean> declared, String declaration,
                              Probe probe) {
    }

    private static final List<Capability> CAPABILITIES_PROBED = List.of(
            new Capability("F64", Feature.OPTIONAL_F64, c -> c.supports(DType.F64), "dtypes(..., DType.F64)",
                    WiringSuite::probeF64),
            new Capability("dropout", Feature.OPTIONAL_DROPOUT, c -> c.has(Capabilities.Feature.DROPOUT),
                    "features(Capabilities.Feature.DROPOUT)", WiringSuite::probeDropout),
            new Capability("attention_weights", Feature.OPTIONAL_RETURNED_WEIGHTS,
                    c -> c.has(Capabilities.Feature.ATTENTION_WEIGHTS),
                    "features(Capabilities.Feature.ATTENTION_WEIGHTS)", WiringSuite::probeWeights));

    /**
     * @param c a planned case
     * @return whether it checks only the provider, and so runs even when the backend is unavailable here
     */
    static boolean runsWithoutBackend(TckCase c) {
        return c.kind() == Kind.WIRING && !c.op().equals(CAPABILITIES);
    }

    static List<TckCase> plan(BackendUnderTest underTest, ServiceWiring wiring) {
        List<TckCase> cases = new ArrayList<>();
        cases.add(wiringCase("wiring_found_by_service_loader", PROVIDER, b -> foundByServiceLoader(underTest, wiring)));
        cases.add(wiringCase("wiring_name", PROVIDER, b -> name(underTest, wiring)));
        cases.add(wiringCase("wiring_priority", PROVIDER, b -> priority(underTest, wiring)));
        cases.add(wiringCase("wiring_availability", PROVIDER, b -> availability(underTest)));
        for (Capability c : CAPABILITIES_PROBED) {
            cases.add(wiringCase("wiring_capabilities_" + c.id(), CAPABILITIES, b -> capability(b, c)));
        }
        for (WeightType type : WeightType.values()) {
            if (type != WeightType.F32 && type != WeightType.F64 && type != WeightType.I8) {
                cases.add(wiringCase("wiring_capabilities_weight_" + type.name().toLowerCase(Locale.ROOT),
                        CAPABILITIES, b -> weightType(b, type)));
            }
        }
        cases.add(wiringCase("wiring_api_signature", "api", b -> ApiSignature.checkClassPath()));
        return cases;
    }

    private static TckCase wiringCase(String id, String op, TckCase.Body body) {
        return new TckCase(id, Kind.WIRING, op, DType.F32, op, Set.of(), body);
    }

    private static String describe(BackendProvider p) {
        return p.name() + " (" + p.getClass().getName() + ")";
    }

    private static Measurement foundByServiceLoader(BackendUnderTest underTest, ServiceWiring wiring) {
        BackendProvider provider = underTest.provider();
        String what = "provider " + underTest.name() + ": ";
        String errors = wiring.errors().isEmpty() ? "" : "; ServiceLoader also reported " + wiring.errors();
        if (provider instanceof BackendUnderTest.GivenBackend) {
            boolean named = wiring.providers().stream().anyMatch(p -> p.name().equals(underTest.name()));
            return named ? Measurement.noted("the kit was handed a Backend, not its provider, so its wiring was"
                    + " checked by name only: ServiceLoader finds a provider named " + underTest.name())
                    : Measurement.failed(what + "the kit was handed a Backend, and ServiceLoader finds no provider"
                    + " of that name on the class path (it finds " + wiring.providers().stream()
                    .map(WiringSuite::describe).toList() + ")" + errors);
        }
        if (provider instanceof MissingProvider) {
            return Measurement.failed(what + provider.availability().reason() + errors);
        }
        Class<?> type = provider.getClass();
        BackendProvider found = wiring.providers().stream().filter(p -> p.getClass().getName().equals(type.getName()))
                .findFirst().orElse(null);
        if (found == null) {
            return Measurement.failed(what + "ServiceLoader finds no provider of class " + type.getName()
                    + " on the class path (it finds " + wiring.providers().stream().map(WiringSuite::describe)
                    .toList() + "), so Backends.load() can never choose it. List the class in the backend's "
                    + "src/main/resources/" + ServiceWiring.SERVICE_FILE + errors);
        }
        if (!Objects.equals(found.name(), provider.name())) {
            return Measurement.failed(what + "the instance ServiceLoader creates is named '" + found.name()
                    + "', the one given to the kit '" + provider.name() + "'");
        }
        Path home = ServiceWiring.home(type);
        List<URL> files = wiring.filesListing(type);
        if (home != null && files.stream().noneMatch(f -> home.equals(ServiceWiring.home(f)))) {
            return Measurement.failed(what + type.getName() + " comes from " + home + ", but the service files that"
                    + " list it are elsewhere (" + files + "): a user who adds the backend's jar alone will not find"
                    + " it. Put " + ServiceWiring.SERVICE_FILE + " into the backend's own jar");
        }
        return home == null ? Measurement.noted("ServiceLoader finds " + type.getName() + "; its class loader does"
                + " not say which jar it came from, so the service file's place was not checked") : Measurement.EXACT;
    }

    private static Measurement name(BackendUnderTest underTest, ServiceWiring wiring) {
        BackendProvider provider = underTest.provider();
        String name = provider.name();
        String what = "provider " + provider.getClass().getName() + ": ";
        if (name == null || !NAME.matcher(name).matches()) {
            return Measurement.failed(what + "name() is " + (name == null ? "null" : "'" + name + "'")
                    + "; it must be a short lower-case name users can type in -Dattn4j.backend=NAME, matching "
                    + NAME.pattern());
        }
        if (!name.equals(provider.name())) {
            return Measurement.failed(what + "name() answered '" + name + "', then '" + provider.name() + "'");
        }
        List<String> others = wiring.providers().stream()
                .filter(p -> p.name().equalsIgnoreCase(name) && !p.getClass().getName().equals(
                        provider.getClass().getName()) && !(provider instanceof BackendUnderTest.GivenBackend))
                .map(WiringSuite::describe).toList();
        if (!others.isEmpty()) {
            return Measurement.failed(what + "another provider on the class path is also named '" + name + "': "
                    + others + "; Backends.load(\"" + name + "\") would pick whichever comes first");
        }
        return Measurement.EXACT;
    }

    private static Measurement priority(BackendUnderTest underTest, ServiceWiring wiring) {
        BackendProvider provider = underTest.provider();
        int priority = provider.priority();
        String what = "provider " + underTest.name() + ": ";
        if (priority != provider.priority()) {
            return Measurement.failed(what + "priority() answered " + priority + ", then " + provider.priority()
                    + "; the default choice must not change between calls");
        }
        if (priority == Integer.MIN_VALUE || priority == Integer.MAX_VALUE) {
            return Measurement.failed(what + "priority() is " + priority + ", an extreme that no other backend can"
                    + " be ordered against; in-tree backends use 100 (ejml) to 300 (cuda)");
        }
        List<String> ties = wiring.providers().stream().filter(p -> p.priority() == priority
                        && !p.name().equals(underTest.name())).map(BackendProvider::name).toList();
        return ties.isEmpty() ? Measurement.EXACT : Measurement.noted("priority " + priority + " ties with " + ties
                + "; Backends.load() breaks the tie by name");
    }

    private static Measurement availability(BackendUnderTest underTest) {
        BackendProvider provider = underTest.provider();
        String what = "provider " + underTest.name() + ": ";
        Availability first;
        Availability second;
        try {
            first = provider.availability();
            second = provider.availability();
        } catch (RuntimeException | LinkageError e) {
            return Measurement.failed(what + "availability() threw " + e + "; it must answer, not throw:"
                    + " Availability.unavailable(\"why, and how to fix it\")");
        }
        if (first == null || second == null) {
            return Measurement.failed(what + "availability() returned null");
        }
        if (first.available() != second.available()) {
            return Measurement.failed(what + "availability() answered " + first + ", then " + second);
        }
        Capabilities declared = provider.capabilities();
        if (declared == null || !declared.equals(provider.capabilities())) {
            return Measurement.failed(what + "capabilities() answered " + declared + ", then "
                    + provider.capabilities());
        }
        if (!first.available()) {
            return Measurement.EXACT;
        }
        Backend backend = underTest.backend();
        if (backend == null) {
            return Measurement.failed(what + "create() returned null");
        }
        if (!underTest.name().equals(backend.name())) {
            return Measurement.failed(what + "create() made a backend named '" + backend.name() + "'");
        }
        if (!declared.equals(backend.capabilities())) {
            return Measurement.failed(what + "the provider declares " + declared + ", its backend "
                    + backend.capabilities() + "; the kit and Backends.describe() trust the provider's");
        }
        try (Scope scope = backend.newScope()) {
            if (scope == null || !scope.isOpen() || scope.backend() != backend) {
                return Measurement.failed(what + "newScope() returned " + scope + ", not an open scope of this"
                        + " backend");
            }
        }
        return Measurement.EXACT;
    }

    private static Measurement capability(Backend backend, Capability c) {
        boolean declared = c.declared().apply(backend.capabilities());
        String problem;
        try (Scope scope = backend.newScope()) {
            problem = c.probe().run(scope);
        } catch (RuntimeException | LinkageError e) {
            problem = "threw " + e;
        }
        String feature = c.feature().description();
        if (declared) {
            return problem == null ? Measurement.EXACT : Measurement.failed(backend.name() + " declares "
                    + feature + " (" + c.declaration() + "), but trying it " + problem);
        }
        return problem != null ? Measurement.EXACT : Measurement.noted(backend.name() + " does not declare "
                + feature + ", yet it works: declare it (Capabilities.builder(...)." + c.declaration()
                + ") and the kit checks the cases that need it instead of skipping them");
    }

    /**
     * A weight type in {@code Capabilities.weightTypes()} is held as it is: a weight of that type occupies about its
     * own bytes (at most a quarter more, for padding or scales kept apart), not the F32 it would be converted to.
     */
    private static Measurement weightType(Backend backend, WeightType type) {
        boolean declared = backend.capabilities().supports(type);
        Shape shape = Shape.of(64, 256);
        long own = type.byteSize(shape);
        long held;
        try (Scope scope = backend.newScope()) {
            float[] values = new float[64 * 256];
            Random random = new Random(type.ordinal());
            for (int i = 0; i < values.length; i++) {
                values[i] = (float) random.nextGaussian();
            }
            held = scope.weight(values, shape, type).byteSize();
        } catch (RuntimeException | LinkageError e) {
            return Measurement.failed(backend.name() + ": binding a " + type + " weight " + shape + " threw " + e);
        }
        boolean asItIs = held <= own + own / 4;
        if (declared) {
            return asItIs ? Measurement.EXACT : Measurement.failed(backend.name() + " declares weight type " + type
                    + " (weightTypes(..., WeightType." + type + ")), but a " + type + " weight " + shape + " of "
                    + own + " bytes occupies " + held + ": it is held widened");
        }
        return asItIs ? Measurement.noted(backend.name() + " does not declare weight type " + type + ", yet holds a "
                + type + " weight in " + held + " bytes (its own " + own + "): declare it (Capabilities.builder(...)"
                + ".weightTypes(..., WeightType." + type + "))") : Measurement.EXACT;
    }

    private static String probeF64(Scope scope) {
        Tensor x = scope.tensor(new double[] {1.5, -2, 0.1}, Shape.of(3), DType.F64);
        Tensor y = scope.ops().add(x, x);
        double[] v = y.toDoubleArray();
        if (x.dtype() != DType.F64 || y.dtype() != DType.F64) {
            return "gave dtypes " + x.dtype() + " and " + y.dtype() + " for an F64 tensor and its sum";
        }
        return v[0] == 3 && v[1] == -4 && v[2] == 0.2 ? null
                : "added [1.5, -2, 0.1] to itself in F64 and got " + java.util.Arrays.toString(v);
    }

    private static String probeDropout(Scope scope) {
        Tensor x = scope.tensor(new float[64], Shape.of(8, 8));
        Tensor y = scope.ops().dropout(x, 0.5, 7);
        return y.shape().equals(x.shape()) ? null : "dropout of [8, 8] returned " + y.shape();
    }

    private static String probeWeights(Scope scope) {
        Tensor q = scope.tensor(new float[] {1, 0, 0, 1}, Shape.of(1, 1, 2, 2));
        Tensor kv = scope.tensor(new float[] {1, 0, 0, 1, 1, 1}, Shape.of(1, 1, 3, 2));
        AttentionResult r = scope.ops().attention(q, kv, kv, AttentionOptions.defaults().withWeights(true));
        if (r.weights() == null) {
            return "attention with withWeights(true) returned no weights";
        }
        return r.weights().shape().equals(Shape.of(1, 1, 2, 3)) ? null
                : "attention of q [1, 1, 2, 2] and k [1, 1, 3, 2] returned weights " + r.weights().shape();
    }

    /**
     * Stands for a provider the kit was asked to find by name and could not: unavailable, so that no case runs on
     * it, and its {@code wiring_found_by_service_loader} case fails with what was found instead.
     */
    static final class MissingProvider implements BackendProvider {
        private final String name;
        private final String reason;

        MissingProvider(String name, ServiceWiring wiring) {
            this.name = name;
            this.reason = "ServiceLoader finds no provider named '" + name + "' on the class path (it finds "
                    + wiring.providers().stream().map(WiringSuite::describe).toList() + "). List your provider class"
                    + " in src/main/resources/" + ServiceWiring.SERVICE_FILE + " and check that its name() is '"
                    + name.toLowerCase(Locale.ROOT) + "'";
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int priority() {
            return 0;
        }

        @Override
        public Availability availability() {
            return Availability.unavailable(reason);
        }

        @Override
        public Capabilities capabilities() {
            return Capabilities.builder("none").build();
        }

        @Override
        public Backend create(BackendOptions options) {
            throw new IllegalStateException(reason);
        }
    }
}
