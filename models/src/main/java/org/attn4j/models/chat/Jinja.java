package org.attn4j.models.chat;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.el.TruthyTypeConverter;
import com.hubspot.jinjava.el.ext.ExtendedParser;
import com.hubspot.jinjava.el.ExtendedSyntaxBuilder;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.JinjavaInterpreterFactory;
import com.hubspot.jinjava.lib.expression.ExpressionStrategy;
import com.hubspot.jinjava.lib.exptest.ExpTest;
import com.hubspot.jinjava.lib.filter.AdvancedFilter;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import com.hubspot.jinjava.lib.tag.Tag;
import com.hubspot.jinjava.tree.Node;
import com.hubspot.jinjava.tree.TagNode;
import com.hubspot.jinjava.tree.output.RenderedOutputNode;
import com.hubspot.jinjava.tree.parse.ExpressionToken;
import java.time.Clock;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BiPredicate;
import jinjava.de.odysseus.el.ExpressionFactoryImpl;
import jinjava.de.odysseus.el.misc.NumberOperations;
import jinjava.de.odysseus.el.misc.TypeConverter;
import jinjava.de.odysseus.el.tree.TreeBuilder;
import jinjava.de.odysseus.el.tree.impl.Builder;
import jinjava.de.odysseus.el.tree.impl.Parser;
import jinjava.de.odysseus.el.tree.impl.Scanner;
import jinjava.de.odysseus.el.tree.impl.ast.AstBinary;
import jinjava.de.odysseus.el.tree.impl.ast.AstNode;
import jinjava.de.odysseus.el.tree.impl.ast.AstUnary;
import jinjava.javax.el.CompositeELResolver;
import jinjava.javax.el.ExpressionFactory;

/**
 * The Jinjava engine set up as transformers sets up Jinja2 for chat templates ({@code raise_exception},
 * {@code strftime_now}, its {@code tojson}, the {@code generation} block, loop controls; white space is
 * {@link Jinja2Lexer}'s business), with Python's semantics where Jinjava's differ and a chat template depends on them:
 * <ul>
 *   <li>{@code +} concatenates two strings or two lists and adds two numbers; any other mix raises Python's
 *       {@code TypeError} (Jinjava would concatenate {@code "null"});</li>
 *   <li>{@code not} binds looser than comparisons and tests ({@code not a == b}, {@code not x is defined}), filters
 *       bind before arithmetic, and a keyword argument's value is a whole expression ({@code n=x|length - 1});</li>
 *   <li>values print as Python's {@code str} ({@code True}, {@code ['a', 1]}), {@code None} as nothing;</li>
 *   <li>string, dict and list methods ({@link PythonMethods}); the tests {@code string}, {@code mapping},
 *       {@code iterable} (strings included; undefined too, which iterates as empty), {@code sequence}, {@code number}, {@code integer}, {@code float},
 *       {@code boolean}; the filters {@code trim}, {@code length}/{@code count} (code points), {@code string},
 *       {@code items}, {@code join}, {@code capitalize}, {@code title} and {@code tojson} as Jinja2 has them;</li>
 *   <li>text inside a value is never rendered again (Jinjava's nested interpretation is off), includes and imports
 *       load nothing.</li>
 * </ul>
 */
final class Jinja {
    /** The clock that {@code strftime_now} reads during one render. */
    private static final ThreadLocal<Clock> CLOCK = new ThreadLocal<>();

    static final Jinjava ENGINE = create();

    private Jinja() {
    }

    private static Jinjava create() {
        LegacyOverrides overrides = LegacyOverrides.newBuilder().withEvaluateMapKeys(true)
                .withIterateOverMapKeys(true).withUsePyishObjectMapper(true).withParseWhitespaceControlStrictly(true)
                .withUseTrimmingForNotesAndExpressions(true).withKeepNullableLoopValues(true)
                .withUseNaturalOperatorPrecedence(false).withWhitespaceRequiredWithinTokens(false).build();
        CompositeELResolver resolver = new CompositeELResolver();
        resolver.add(new PythonMethods());
        resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_ONLY);
        JinjavaConfig config = JinjavaConfig.newBuilder().withTrimBlocks(false).withLstripBlocks(false)
                .withLegacyOverrides(overrides).withNestedInterpretationEnabled(false).withFailOnUnknownTokens(false)
                .withElResolver(resolver).withMaxOutputSize(64L << 20)
                .withInterperterFactory(new JinjavaInterpreterFactory() {
                    @Override
                    public JinjavaInterpreter newInstance(Jinjava application, Context context, JinjavaConfig c) {
                        context.setExpressionStrategy(new PythonOutput());
                        return super.newInstance(application, context, c);
                    }
                }).build();
        Jinjava jinjava = new PythonJinjava(config);
        jinjava.setResourceLocator((name, charset, interpreter) -> {
            throw new java.io.IOException("chat templates cannot load '" + name + "': they are one template");
        });
        jinjava.registerFunction(function("raise_exception", "raiseException", Object.class));
        jinjava.registerFunction(function("strftime_now", "strftimeNow", String.class));
        jinjava.registerTag(new GenerationTag());
        jinjava.registerFilter(filter("tojson", Jinja::toJson));
        jinjava.registerFilter(filter("trim", (v, a, kw) -> Python.strip(text(v), a.length > 0
                ? Python.text(a[0]) : null, true, true)));
        jinjava.registerFilter(filter("length", (v, a, kw) -> v == null ? 0 : Python.len(v)));
        jinjava.registerFilter(filter("count", (v, a, kw) -> v == null ? 0 : Python.len(v)));
        jinjava.registerFilter(filter("string", (v, a, kw) -> text(v)));
        jinjava.registerFilter(filter("items", (v, a, kw) -> v == null ? List.of()
                : v instanceof Map<?, ?> m ? PythonMethods.items(m) : fail("items", v)));
        jinjava.registerFilter(filter("join", Jinja::join));
        jinjava.registerFilter(filter("capitalize", (v, a, kw) -> {
            String s = Python.str(v);
            return s.isEmpty() ? s : s.substring(0, s.offsetByCodePoints(0, 1)).toUpperCase(java.util.Locale.ROOT)
                    + s.substring(s.offsetByCodePoints(0, 1)).toLowerCase(java.util.Locale.ROOT);
        }));
        jinjava.registerFilter(filter("title", (v, a, kw) -> PythonMethods.title(Python.str(v))));
        jinjava.registerFunction(function("attn4j_loop_if", "loopIf", Object.class, String.class, String.class));
        jinjava.registerFilter(filter("attn4j_reversed", (v, a, kw) -> {
            if (Python.isString(v)) {
                return new StringBuilder(Python.text(v)).reverse().toString();
            }
            if (!(v instanceof Collection<?> c)) {
                return fail("[::-1]", v);
            }
            List<Object> out = new ArrayList<>(c);
            java.util.Collections.reverse(out);
            return out;
        }));
        jinjava.registerExpTest(test("string", (v, a) -> Python.isString(v)));
        jinjava.registerExpTest(test("mapping", (v, a) -> v instanceof Map));
        jinjava.registerExpTest(test("iterable", (v, a) -> v == null || Python.isString(v)
                || v instanceof Collection || v instanceof Map || v.getClass().isArray()));
        jinjava.registerExpTest(test("sequence", (v, a) -> Python.isString(v) || v instanceof Collection
                || v instanceof Map || (v != null && v.getClass().isArray())));
        jinjava.registerExpTest(test("number", (v, a) -> Python.isNumber(v)));
        jinjava.registerExpTest(test("boolean", (v, a) -> v instanceof Boolean));
        jinjava.registerExpTest(test("integer", (v, a) -> v instanceof Number && !(v instanceof Double)
                && !(v instanceof Float) && !(v instanceof java.math.BigDecimal)));
        jinjava.registerExpTest(test("float", (v, a) -> v instanceof Double || v instanceof Float
                || v instanceof java.math.BigDecimal));
        return jinjava;
    }

    private static ELFunctionDefinition function(String name, String method, Class<?>... parameters) {
        try {
            java.lang.reflect.Method m = Jinja.class.getDeclaredMethod(method, parameters);
            m.setAccessible(true);
            return new ELFunctionDefinition("", name, m);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Renders with {@code clock} as the time {@code strftime_now} reads.
     *
     * @param template the template source, already as Jinja2's lexer leaves it
     * @param context the variables
     * @param clock the clock
     * @return Jinjava's result
     */
    static com.hubspot.jinjava.interpret.RenderResult render(String template, Map<String, Object> context,
                                                              Clock clock) {
        CLOCK.set(clock);
        try {
            return ENGINE.renderForResult(template, context);
        } finally {
            CLOCK.remove();
        }
    }

    /**
     * transformers' {@code raise_exception(message)}.
     *
     * @param message the template's message
     * @return never
     */
    static Object raiseException(Object message) {
        throw new ChatTemplateException.Raised(Python.str(message));
    }

    /**
     * transformers' {@code strftime_now(format)}: the current date and time in Python's {@code strftime} format.
     *
     * @param format the format
     * @return the formatted time of the render's clock
     */
    static String strftimeNow(String format) {
        Clock clock = CLOCK.get();
        return Strftime.format(format, ZonedDateTime.now(clock == null ? Clock.systemDefaultZone() : clock));
    }

    /**
     * {@code attn4j_loop_if(items, 'targets', 'condition')}: the items for which the condition holds with the loop's
     * targets bound to them, which is what {@link Jinja2Lexer} turns a loop filter
     * ({@code for targets in items if condition}) into.
     *
     * @param items what the loop iterates (a dict gives its keys, a string its characters)
     * @param targets the loop's target names, comma-separated
     * @param condition the filter expression
     * @return the kept items, in order
     */
    static List<Object> loopIf(Object items, String targets, String condition) {
        JinjavaInterpreter interpreter = JinjavaInterpreter.getCurrent();
        String[] names = targets.replace("(", "").replace(")", "").split(",");
        Collection<?> all = items == null ? List.of() : items instanceof Map<?, ?> m ? m.keySet()
                : items instanceof Collection<?> c ? c : Python.isString(items)
                ? Python.text(items).codePoints().mapToObj(Character::toString).toList() : List.of(fail("for", items));
        List<Object> kept = new ArrayList<>();
        for (Object item : all) {
            interpreter.enterScope();
            try {
                if (names.length == 1) {
                    interpreter.getContext().put(names[0].strip(), item);
                } else {
                    List<?> parts = item instanceof List<?> l ? l : item instanceof Map.Entry<?, ?> e
                            ? java.util.Arrays.asList(e.getKey(), e.getValue()) : null;
                    if (parts == null || parts.size() != names.length) {
                        throw new Python.TypeError("cannot unpack " + Python.typeName(item) + " into " + names.length
                                + " loop variables");
                    }
                    for (int i = 0; i < names.length; i++) {
                        interpreter.getContext().put(names[i].strip(), parts.get(i));
                    }
                }
                if (truthy(interpreter.resolveELExpression(condition, interpreter.getLineNumber()))) {
                    kept.add(item);
                }
            } finally {
                interpreter.leaveScope();
            }
        }
        return kept;
    }

    /** transformers' tojson: {@code json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)}. */
    private static Object toJson(Object v, Object[] args, Map<String, Object> kwargs) {
        Object indentArg = kwargs.containsKey("indent") ? kwargs.get("indent") : args.length > 0 ? args[0] : null;
        String indent = indentArg == null ? null : indentArg instanceof Number n ? " ".repeat(n.intValue())
                : Python.str(indentArg);
        Object separators = kwargs.get("separators");
        String item = indent == null ? ", " : ",";
        String key = ": ";
        if (separators instanceof List<?> s && s.size() == 2) {
            item = Python.str(s.get(0));
            key = Python.str(s.get(1));
        }
        boolean ascii = Boolean.TRUE.equals(kwargs.get("ensure_ascii"));
        boolean sort = Boolean.TRUE.equals(kwargs.get("sort_keys"));
        return Python.json(v, ascii, indent, item, key, sort);
    }

    private static Object join(Object v, Object[] args, Map<String, Object> kwargs) {
        if (v == null) {
            return "";
        }
        String separator = args.length > 0 && args[0] != null ? Python.str(args[0]) : "";
        Object attribute = kwargs.get("attribute");
        List<String> parts = new ArrayList<>();
        Collection<?> items = v instanceof Map<?, ?> m ? m.keySet() : v instanceof Collection<?> c ? c
                : Python.isString(v) ? Python.text(v).codePoints().mapToObj(Character::toString).toList()
                : List.of(fail("join", v));
        for (Object o : items) {
            parts.add(Python.str(attribute != null && o instanceof Map<?, ?> m ? m.get(attribute) : o));
        }
        return String.join(separator, parts);
    }

    /** Python's {@code str}, with {@code None} and undefined (which Jinjava cannot tell apart) as undefined: empty. */
    private static String text(Object v) {
        return v == null ? "" : Python.str(v);
    }

    /** Python's truth value. */
    static boolean truthy(Object v) {
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof Number n) {
            return n.doubleValue() != 0;
        }
        if (Python.isString(v)) {
            return !Python.text(v).isEmpty();
        }
        if (v instanceof Collection<?> c) {
            return !c.isEmpty();
        }
        if (v instanceof Map<?, ?> m) {
            return !m.isEmpty();
        }
        return true;
    }

    private static Object fail(String filter, Object v) {
        throw new Python.TypeError("the " + filter + " filter cannot take a " + Python.typeName(v));
    }

    /** A filter's body: the value, positional and keyword arguments. */
    private interface FilterBody {
        Object apply(Object value, Object[] args, Map<String, Object> kwargs);
    }

    private static AdvancedFilter filter(String name, FilterBody body) {
        return new AdvancedFilter() {
            @Override
            public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
                return body.apply(var, args, kwargs);
            }

            @Override
            public String getName() {
                return name;
            }
        };
    }

    private static ExpTest test(String name, BiPredicate<Object, Object[]> body) {
        return new ExpTest() {
            @Override
            public boolean evaluate(Object var, JinjavaInterpreter interpreter, Object... args) {
                return body.test(var, args);
            }

            @Override
            public String getName() {
                return name;
            }
        };
    }

    /** Prints a value as Jinja2 does: Python's {@code str}, nothing for {@code None} or undefined. */
    private static final class PythonOutput implements ExpressionStrategy {
        private static final long serialVersionUID = 1L;

        @Override
        public RenderedOutputNode interpretOutput(ExpressionToken master, JinjavaInterpreter interpreter) {
            Object value = interpreter.resolveELExpression(master.getExpr(), master.getLineNumber());
            return new RenderedOutputNode(text(value));
        }
    }

    /** transformers' {@code {% generation %}…{% endgeneration %}}: marks assistant text; renders its body. */
    private static final class GenerationTag implements Tag {
        private static final long serialVersionUID = 1L;

        @Override
        public String interpret(TagNode tagNode, JinjavaInterpreter interpreter) {
            StringBuilder out = new StringBuilder();
            for (Node child : tagNode.getChildren()) {
                out.append(child.render(interpreter).getValue());
            }
            return out.toString();
        }

        @Override
        public String getEndTagName() {
            return "endgeneration";
        }

        @Override
        public String getName() {
            return "generation";
        }
    }

    /** Jinjava whose expressions parse {@code +} with Python's meaning. */
    private static final class PythonJinjava extends Jinjava {
        private final ExpressionFactory factory;

        PythonJinjava(JinjavaConfig config) {
            super(config);
            this.factory = new ExpressionFactoryImpl(new Properties(), new TruthyTypeConverter()) {
                @Override
                protected TreeBuilder createTreeBuilder(Properties properties, Builder.Feature... features) {
                    return new PythonSyntax(features);
                }
            };
        }

        @Override
        public ExpressionFactory getExpressionFactory() {
            return factory;
        }
    }

    /** Jinjava's expression syntax with {@link PythonAdd} for {@code +}. */
    private static final class PythonSyntax extends ExtendedSyntaxBuilder {
        private static final long serialVersionUID = 1L;

        PythonSyntax(Builder.Feature... features) {
            super(features);
        }

        @Override
        protected Parser createParser(String expression) {
            return new ExtendedParser(this, expression) {
                /** Python's {@code not} binds looser than comparisons and tests: {@code not a == b} is not (a == b). */
                @Override
                protected AstNode and(boolean required) throws Scanner.ScanException, ParseException {
                    AstNode v = not(required);
                    if (v == null) {
                        return null;
                    }
                    while (getToken().getSymbol() == Scanner.Symbol.AND) {
                        consumeToken();
                        v = createAstBinary(v, not(true), AstBinary.AND);
                    }
                    return v;
                }

                private AstNode not(boolean required) throws Scanner.ScanException, ParseException {
                    if (getToken().getSymbol() == Scanner.Symbol.NOT
                            && !"in".equals(lookahead(0).getImage())) {
                        consumeToken();
                        return createAstUnary(not(true), AstUnary.NOT);
                    }
                    return eq(required);
                }

                @Override
                protected AstNode add(boolean required) throws Scanner.ScanException, ParseException {
                    AstNode v = mul(required);
                    if (v == null) {
                        return null;
                    }
                    while (true) {
                        Scanner.Symbol symbol = getToken().getSymbol();
                        if (symbol == Scanner.Symbol.PLUS) {
                            consumeToken();
                            v = createAstBinary(v, mul(true), PythonAdd.OP);
                        } else if (symbol == Scanner.Symbol.MINUS) {
                            consumeToken();
                            v = createAstBinary(v, mul(true), AstBinary.SUB);
                        } else if (symbol == Scanner.Symbol.EXTENSION && "=".equals(getToken().getImage())) {
                            return getExtensionHandler(consumeToken()).createAstNode(v, expr(true));
                        } else if (symbol == Scanner.Symbol.EXTENSION
                                && getExtensionHandler(getToken()).getExtensionPoint() == ExtensionPoint.ADD) {
                            v = getExtensionHandler(consumeToken()).createAstNode(v, mul(true));
                        } else {
                            return v;
                        }
                    }
                }
            };
        }
    }

    /** Python's {@code +}: str + str, list + list, number + number; anything else is a {@code TypeError}. */
    private static final class PythonAdd extends AstBinary.SimpleOperator {
        static final PythonAdd OP = new PythonAdd();

        @Override
        protected Object apply(TypeConverter converter, Object a, Object b) {
            if (Python.isString(a) && Python.isString(b)) {
                return Python.text(a) + Python.text(b);
            }
            if (a instanceof List<?> x && b instanceof List<?> y) {
                List<Object> out = new ArrayList<>(x);
                out.addAll(y);
                return out;
            }
            if (Python.isNumber(a) && Python.isNumber(b)) {
                return NumberOperations.add(converter, a instanceof Boolean p ? (p ? 1 : 0) : a,
                        b instanceof Boolean q ? (q ? 1 : 0) : b);
            }
            if (Python.isString(a)) {
                throw new Python.TypeError("can only concatenate str (not \"" + Python.typeName(b) + "\") to str");
            }
            if (a instanceof List) {
                throw new Python.TypeError("can only concatenate list (not \"" + Python.typeName(b) + "\") to list");
            }
            throw new Python.TypeError("unsupported operand type(s) for +: '" + Python.typeName(a) + "' and '"
                    + Python.typeName(b) + "'");
        }

        @Override
        public String toString() {
            return "+";
        }
    }
}
