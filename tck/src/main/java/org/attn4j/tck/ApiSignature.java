package org.attn4j.tck;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.attn4j.api.Backend;

/**
 * The public surface of the api's packages ({@code org.attn4j.api} and {@code org.attn4j.api.spi}), in the manner
 * of the JCK's signature test: one line per exported type, supertype, constructor, method and field, read by
 * reflection from the classes of the api jar (or class folder) on the class path, with its modifiers and generic
 * types. A line is {@code <key>: <value>}: the key names the member (kind, type, name, erased parameters), the value
 * what a caller compiles against (modifiers, generic return, parameter and field types, constant values).
 *
 * <p>Compared with a committed signature ({@value #RESOURCE}, in the kit's jar), a key that is gone is a removal and
 * a value that differs a change: both break callers or implementers, and both fail. A new key is an addition, which
 * a minor version may make. An added abstract method is still an addition, marked so in the report, since every
 * implementation outside the spi's base classes must then add it. A method that was abstract and has a body now
 * (a {@code default}) is reported with the additions: nothing compiled against the signature breaks.
 *
 * <p>Regenerate the committed file after an intended change of the api (see the tck README):
 * {@code mvn -B -q -pl tck -am verify -Dtest=ApiSignatureTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dattn4j.apiSignature.write=true -DskipReleaseArtifacts}.
 */
final class ApiSignature {
    /** The committed signature, a class-path resource of the kit. */
    static final String RESOURCE = "/org/attn4j/tck/api.signature";
    private static final String PACKAGE = "org.attn4j.api";
    private static final int MODIFIERS = Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL
            | Modifier.ABSTRACT;
    private static final int LISTED = 20;

    private final Map<String, String> lines;

    private ApiSignature(Map<String, String> lines) {
        this.lines = lines;
    }

    /** @return the surface of the api whose classes the kit runs with */
    static ApiSignature ofClassPath() {
        return of(Backend.class);
    }

    /**
     * @param anyApiClass a class of the api jar or folder to read
     * @return the surface of every exported type of that jar or folder under {@code org.attn4j.api}
     */
    static ApiSignature of(Class<?> anyApiClass) {
        Path home = ServiceWiring.home(anyApiClass);
        if (home == null) {
            throw new IllegalStateException("tck: the class loader of " + anyApiClass.getName() + " does not say which"
                    + " jar it came from, so the api's signature cannot be read");
        }
        Map<String, String> lines = new TreeMap<>();
        for (String name : classNames(home)) {
            Class<?> type;
            try {
                type = Class.forName(name, false, anyApiClass.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IllegalStateException("tck: class " + name + " of " + home + " cannot be loaded: " + e, e);
            }
            if (exported(type)) {
                describe(type, lines);
            }
        }
        return new ApiSignature(lines);
    }

    /** @return the signature committed with the kit */
    static ApiSignature committed() {
        try (InputStream in = ApiSignature.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("tck: resource " + RESOURCE + " is missing from the kit's jar");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param text a signature as {@link #toText(String)} writes it
     * @return its lines; comments and blank lines left out
     */
    static ApiSignature parse(String text) {
        Map<String, String> lines = new TreeMap<>();
        for (String line : text.lines().toList()) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(": ");
            if (colon < 0) {
                throw new IllegalArgumentException("api signature: line without ': ' separating key and value: "
                        + line);
            }
            lines.put(line.substring(0, colon), line.substring(colon + 2));
        }
        return new ApiSignature(lines);
    }

    /**
     * @param header the comment line to start with
     * @return one line per member, sorted by key
     */
    String toText(String header) {
        StringBuilder b = new StringBuilder("# ").append(header).append('\n');
        lines.forEach((k, v) -> b.append(k).append(": ").append(v).append('\n'));
        return b.toString();
    }

    /** @return the number of members */
    int size() {
        return lines.size();
    }

    /**
     * What changed from a reference signature to this one.
     *
     * @param removed members of the reference that are gone
     * @param changed members whose declaration differs, each {@code key: was … now …}
     * @param added members the reference lacks, each marked when it is an abstract method
     */
    record Difference(List<String> removed, List<String> changed, List<String> added) {
        /** @return whether a caller or implementer compiled against the reference may break */
        boolean breaking() {
            return !removed.isEmpty() || !changed.isEmpty();
        }

        /** @return the breaking changes, at most {@value #LISTED} of each kind, on one line */
        String describeBreaking() {
            return (removed.isEmpty() ? "" : removed.size() + " removed " + cut(removed))
                    + (removed.isEmpty() || changed.isEmpty() ? "" : "; ")
                    + (changed.isEmpty() ? "" : changed.size() + " changed " + cut(changed));
        }

        /** @return the additions, at most {@value #LISTED}, on one line */
        String describeAdded() {
            return added.size() + " added " + cut(added);
        }

        private static String cut(List<String> items) {
            return items.size() <= LISTED ? items.toString()
                    : items.subList(0, LISTED) + " and " + (items.size() - LISTED) + " more";
        }
    }

    /**
     * @param reference the signature callers were compiled against
     * @return what this signature removed, changed and added
     */
    Difference since(ApiSignature reference) {
        List<String> removed = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        List<String> added = new ArrayList<>();
        reference.lines.forEach((key, was) -> {
            String now = lines.get(key);
            if (now == null) {
                removed.add(key);
            } else if (gainedABody(key, was, now)) {
                added.add(key + " (was abstract, now has a body: implementations may leave it out)");
            } else if (!now.equals(was)) {
                changed.add(key + ": was '" + was + "', now '" + now + "'");
            }
        });
        lines.forEach((key, now) -> {
            if (!reference.lines.containsKey(key)) {
                added.add(key + (key.startsWith("method ") && now.contains("abstract ")
                        ? " (abstract: every implementation must add it)" : ""));
            }
        });
        return new Difference(removed, changed, added);
    }

    /**
     * @return whether a method that was abstract has a body now (an interface's {@code default}, or a base class's
     *     method that is no longer abstract), and nothing else of it changed: every caller and implementation still
     *     compiles and links
     */
    private static boolean gainedABody(String key, String was, String now) {
        return key.startsWith("method ") && was.contains("abstract ")
                && (now.equals(was.replaceFirst("abstract ", "default "))
                        || now.equals(was.replaceFirst("abstract ", "")));
    }

    /**
     * The kit's case {@code wiring_api_signature}.
     *
     * @return a failure naming every breaking difference between the api on the class path and the one the kit was
     *     built against, or a note listing the additions
     */
    static Measurement checkClassPath() {
        Difference d = ofClassPath().since(committed());
        String where = "the attn4j-api on the class path (" + ServiceWiring.home(Backend.class) + ")";
        if (d.breaking()) {
            return Measurement.failed(where + " lacks or changed members the kit was built against: "
                    + d.describeBreaking() + "; run the kit of the same api version");
        }
        return d.added().isEmpty() ? Measurement.EXACT : Measurement.noted(where + " has members the kit's"
                + " signature does not list, which a minor version may add: " + d.describeAdded());
    }

    private static List<String> classNames(Path home) {
        String folder = PACKAGE.replace('.', '/') + "/";
        try {
            if (Files.isDirectory(home)) {
                try (Stream<Path> files = Files.walk(home.resolve(folder))) {
                    return files.map(p -> home.relativize(p).toString().replace('\\', '/'))
                            .filter(ApiSignature::isClassFile).map(ApiSignature::className).sorted().toList();
                }
            }
            List<String> names = new ArrayList<>();
            try (JarFile jar = new JarFile(home.toFile())) {
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                    String entry = e.nextElement().getName();
                    if (entry.startsWith(folder) && isClassFile(entry)) {
                        names.add(className(entry));
                    }
                }
            }
            names.sort(null);
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException("tck: cannot list the api's classes in " + home + ": " + e.getMessage(), e);
        }
    }

    private static boolean isClassFile(String path) {
        return path.endsWith(".class") && !path.endsWith("module-info.class") && !path.endsWith("package-info.class");
    }

    private static String className(String path) {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.');
    }

    /** @return whether code outside the api can name the type: public, or protected inside an exported type */
    private static boolean exported(Class<?> type) {
        if (type.isAnonymousClass() || type.isLocalClass() || type.isSynthetic()) {
            return false;
        }
        int m = type.getModifiers();
        Class<?> outer = type.getDeclaringClass();
        return outer == null ? Modifier.isPublic(m)
                : (Modifier.isPublic(m) || Modifier.isProtected(m)) && exported(outer);
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void describe(Class<?> type, Map<String, String> lines) {
        String name = type.getName();
        String kind = type.isAnnotation() ? "@interface" : type.isInterface() ? "interface" : type.isEnum() ? "enum"
                : type.isRecord() ? "record" : "class";
        int typeModifiers = type.getModifiers() & MODIFIERS & ~(type.isInterface() ? Modifier.ABSTRACT : 0);
        lines.put("type " + name, (Modifier.toString(typeModifiers) + " " + kind + typeParameters(type)).strip());
        if (type.getGenericSuperclass() != null && type.getSuperclass() != Object.class && !type.isEnum()
                && !type.isRecord()) {
            lines.put("extends " + name + " " + type.getSuperclass().getName(), type.getGenericSuperclass()
                    .getTypeName());
        }
        for (Type t : type.getGenericInterfaces()) {
            String erased = t instanceof Class<?> c ? c.getName() : ((java.lang.reflect.ParameterizedType) t)
                    .getRawType().getTypeName();
            lines.put("implements " + name + " " + erased, t.getTypeName());
        }
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (visible(c.getModifiers()) && !c.isSynthetic()) {
                lines.put("constructor " + name + "(" + erased(c) + ")", modifiers(c.getModifiers(), false)
                        + typeParameters(c) + "(" + generic(c) + ")" + exceptions(c));
            }
        }
        for (Method m : type.getDeclaredMethods()) {
            if (visible(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()) {
                lines.put("method " + name + "#" + m.getName() + "(" + erased(m) + ")",
                        modifiers(m.getModifiers(), m.isDefault()) + typeParameters(m)
                                + m.getGenericReturnType().getTypeName() + " (" + generic(m) + ")" + exceptions(m));
            }
        }
        for (Field f : type.getDeclaredFields()) {
            if (visible(f.getModifiers()) && !f.isSynthetic()) {
                lines.put("field " + name + "#" + f.getName(), modifiers(f.getModifiers(), false)
                        + f.getGenericType().getTypeName() + constant(f));
            }
        }
    }

    private static String modifiers(int modifiers, boolean isDefault) {
        String s = Modifier.toString(modifiers & MODIFIERS);
        return (isDefault ? s + " default" : s).strip() + " ";
    }

    private static String typeParameters(java.lang.reflect.GenericDeclaration d) {
        var params = d.getTypeParameters();
        if (params.length == 0) {
            return "";
        }
        return Arrays.stream(params).map(p -> p.getName() + (p.getBounds().length == 1
                && p.getBounds()[0] == Object.class ? "" : " extends " + Arrays.stream(p.getBounds())
                .map(Type::getTypeName).collect(Collectors.joining(" & ")))).collect(Collectors.joining(", ", "<", "> "));
    }

    private static String erased(Executable e) {
        return Arrays.stream(e.getParameterTypes()).map(Class::getTypeName).collect(Collectors.joining(","));
    }

    private static String generic(Executable e) {
        return Arrays.stream(e.getGenericParameterTypes()).map(Type::getTypeName).collect(Collectors.joining(", "));
    }

    private static String exceptions(Executable e) {
        Type[] thrown = e.getGenericExceptionTypes();
        return thrown.length == 0 ? "" : " throws " + Arrays.stream(thrown).map(Type::getTypeName)
                .collect(Collectors.joining(", "));
    }

    private static String constant(Field f) {
        int m = f.getModifiers();
        if (!Modifier.isStatic(m) || !Modifier.isFinal(m) || !(f.getType().isPrimitive()
                || f.getType() == String.class)) {
            return "";
        }
        try {
            Object value = f.get(null);
            return " = " + (value instanceof String s ? "\"" + s + "\"" : value);
        } catch (IllegalAccessException e) {
            return "";
        }
    }
}
