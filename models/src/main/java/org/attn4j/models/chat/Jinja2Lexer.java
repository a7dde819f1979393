package org.attn4j.models.chat;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a template as Jinja2's lexer does, with transformers' {@code trim_blocks} and {@code lstrip_blocks}, and
 * writes it back in a form Jinjava renders the same way. Jinja2's rules are applied here, once, and Jinjava is left
 * no white space to manage:
 * <ul>
 *   <li>{@code {%-}, {@code {{-}, {@code {#-} strip all white space before the tag, {@code -%}}, {@code -}}},
 *       {@code -#}} all white space after it;</li>
 *   <li>{@code lstrip_blocks}: spaces and tabs between the start of a line and a block or comment tag go, unless the
 *       tag is {@code {%+}; {@code trim_blocks}: one newline after a block or comment tag goes, unless it ends
 *       {@code +%}};</li>
 *   <li>a tag ends at its delimiter only outside strings and brackets, so a dict literal may close with
 *       {@code }}}; comments are dropped; {@code raw} blocks are kept as written;</li>
 *   <li>a loop filter, {@code {% for x in items if cond %}}, which Jinjava would read as a conditional expression, is
 *       rewritten to filter the items first (a function, {@code attn4j_loop_if}) (so {@code loop} counts the kept ones, as in Jinja2);</li>
 *   <li>the reversing slice {@code x[::-1]} (Qwen3's template) becomes a filter that reverses {@code x}.</li>
 * </ul>
 * What Jinjava cannot render the Jinja2 way is refused with a {@link ChatTemplateException} naming it: a filter or
 * test it does not have (Jinjava would silently skip an unknown filter), a {@code for … else} block, a {@code recursive} loop, {@code loop.previtem}, {@code loop.nextitem} and
 * {@code loop.changed}, other slices with a step, an unclosed tag or string.
 */
final class Jinja2Lexer {
    private static final Pattern RAW_END = Pattern.compile("\\{%([-+]?)\\s*endraw\\s*([-+]?)%}");
    private static final Pattern NAME = Pattern.compile("\\s*([A-Za-z_][A-Za-z_0-9]*)");
    private static final Pattern FILTER = Pattern.compile("\\|\\s*([A-Za-z_][A-Za-z_0-9]*)");
    private static final Pattern TEST = Pattern.compile("\\bis\\s+(?:not\\s+)?([A-Za-z_][A-Za-z_0-9]*)");
    private static final Pattern LOOP_MISSING = Pattern.compile("\\bloop\\s*\\.\\s*(previtem|nextitem|changed)\\b");
    private static final Pattern STEP = Pattern.compile("\\[\\s*[^\\]\\[:]*:[^\\]\\[:]*:");
    private static final Pattern REVERSED = Pattern.compile("\\[\\s*:\\s*:\\s*-\\s*1\\s*](?=\\s*($|[)|,\\]}]))");
    private static final List<String> BLOCKS = List.of("for", "if", "macro", "call", "filter", "with", "autoescape",
            "block", "generation");

    private final String s;
    private final StringBuilder out = new StringBuilder();
    private final Deque<String> blocks = new ArrayDeque<>();
    private int pos;
    private boolean lineStarting = true;

    private Jinja2Lexer(String source) {
        this.s = source;
    }

    /**
     * @param source the template as Jinja2's lexer reads it (newlines already {@code \n}, one trailing newline gone)
     * @return the template for Jinjava, without white space control to apply
     * @throws ChatTemplateException if the template uses something Jinjava cannot render as Jinja2 does
     */
    static String rewrite(String source) {
        Jinja2Lexer l = new Jinja2Lexer(source);
        l.run();
        return l.out.toString();
    }

    private void run() {
        while (pos < s.length()) {
            int start = nextOpener(pos);
            if (start < 0) {
                out.append(s, pos, s.length());
                return;
            }
            char kind = s.charAt(start + 1);
            char mark = start + 2 < s.length() ? s.charAt(start + 2) : 0;
            String data = s.substring(pos, start);
            if (mark == '-') {
                data = Python.strip(data, null, false, true);
            } else if (mark != '+' && kind != '{') {
                int lineStart = data.lastIndexOf('\n') + 1;
                if ((lineStart > 0 || lineStarting) && data.substring(lineStart).chars().allMatch(c -> c == ' '
                        || c == '\t')) {
                    data = data.substring(0, lineStart);
                }
            }
            out.append(data);
            int contentStart = start + 2 + (mark == '-' || mark == '+' ? 1 : 0);
            switch (kind) {
                case '#' -> comment(start, contentStart);
                case '{' -> variable(start, contentStart);
                default -> block(start, contentStart);
            }
        }
    }

    private int nextOpener(int from) {
        for (int i = s.indexOf('{', from); i >= 0 && i + 1 < s.length(); i = s.indexOf('{', i + 1)) {
            char c = s.charAt(i + 1);
            if (c == '{' || c == '%' || c == '#') {
                return i;
            }
        }
        return -1;
    }

    private void comment(int start, int contentStart) {
        int end = s.indexOf("#}", contentStart);
        if (end < 0) {
            throw unclosed("comment", start);
        }
        char mark = s.charAt(end - 1);
        afterTag(end + 2, end - 1 >= contentStart ? mark : 0, true);
    }

    private void variable(int start, int contentStart) {
        int[] end = end(contentStart, '}', start, "expression");
        out.append("{{").append(spacedBraces(expression(s.substring(contentStart, end[0]), start))).append("}}");
        afterTag(end[1], end[2], false);
    }

    private void block(int start, int contentStart) {
        int[] end = end(contentStart, '%', start, "tag");
        String content = expression(s.substring(contentStart, end[0]), start);
        Matcher name = NAME.matcher(content);
        String tag = name.lookingAt() ? name.group(1) : "";
        if (tag.equals("raw")) {
            raw(start, end);
            return;
        }
        if (tag.equals("for")) {
            content = loop(content.substring(name.end()), start);
        } else if (tag.equals("set") && !content.contains("=")) {
            blocks.push("set");
        } else if (tag.equals("else") && "for".equals(blocks.peek())) {
            throw new ChatTemplateException("the chat template uses {% for %}…{% else %}…{% endfor %} (line "
                    + line(start) + "), which attn4j's template engine, Jinjava, does not render");
        } else if (BLOCKS.contains(tag)) {
            blocks.push(tag);
        } else if (tag.startsWith("end") && !blocks.isEmpty() && blocks.peek().equals(tag.substring(3))) {
            blocks.pop();
        }
        out.append("{%").append(spacedBraces(content)).append("%}");
        afterTag(end[1], end[2], true);
    }

    /** Checks and rewrites the code of a tag: missing loop variables refused, {@code [::-1]} reversed. */
    private String expression(String code, int start) {
        String bare = withoutStrings(code);
        for (Matcher f = FILTER.matcher(bare); f.find(); ) {
            if (Jinja.ENGINE.getGlobalContext().getFilter(f.group(1)) == null) {
                throw new ChatTemplateException("the chat template uses the filter '" + f.group(1) + "' (line "
                        + line(start) + "), which attn4j's template engine, Jinjava, does not provide");
            }
        }
        for (Matcher t = TEST.matcher(bare); t.find(); ) {
            if (Jinja.ENGINE.getGlobalContext().getExpTest(t.group(1)) == null) {
                throw new ChatTemplateException("the chat template uses the test 'is " + t.group(1) + "' (line "
                        + line(start) + "), which attn4j's template engine, Jinjava, does not provide");
            }
        }
        Matcher missing = LOOP_MISSING.matcher(bare);
        if (missing.find()) {
            throw new ChatTemplateException("the chat template uses loop." + missing.group(1) + " (line " + line(start)
                    + "), which attn4j's template engine, Jinjava, does not provide");
        }
        if (!STEP.matcher(bare).find()) {
            return code;
        }
        StringBuilder b = new StringBuilder();
        Matcher reversed = REVERSED.matcher(bare);
        int from = 0;
        while (reversed.find()) {
            b.append(code, from, reversed.start()).append("|attn4j_reversed");
            from = reversed.end();
        }
        b.append(code.substring(from));
        if (STEP.matcher(withoutStrings(b.toString())).find()) {
            throw new ChatTemplateException("the chat template uses a slice with a step (line " + line(start)
                    + "), which attn4j's template engine, Jinjava, does not provide beyond [::-1] at the end of a"
                    + " value");
        }
        return b.toString();
    }

    /** @return the code with every string literal's content replaced by spaces, so that offsets stay */
    private static String withoutStrings(String code) {
        StringBuilder b = new StringBuilder(code);
        char quote = 0;
        for (int i = 0; i < b.length(); i++) {
            char c = b.charAt(i);
            if (quote != 0) {
                if (c == '\\' && i + 1 < b.length()) {
                    b.setCharAt(i, ' ');
                    b.setCharAt(++i, ' ');
                } else if (c == quote) {
                    quote = 0;
                } else {
                    b.setCharAt(i, ' ');
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            }
        }
        return b.toString();
    }

    /** {@code for TARGETS in ITER [if COND]}, the part after {@code for}. */
    private String loop(String header, int start) {
        blocks.push("for");
        int in = keyword(header, "in", 0);
        if (in < 0) {
            return "for" + header;
        }
        String targets = header.substring(0, in).strip();
        int cond = keyword(header, "if", in + 2);
        int recursive = keyword(header, "recursive", in + 2);
        if (recursive >= 0) {
            throw new ChatTemplateException("the chat template uses a recursive loop (line " + line(start)
                    + "), which attn4j's template engine, Jinjava, does not render");
        }
        if (cond < 0) {
            return "for" + header;
        }
        String items = header.substring(in + 2, cond).strip();
        String condition = header.substring(cond + 2).strip();
        return " for " + targets + " in attn4j_loop_if(" + items + ", '" + quote(targets) + "', '"
                + quote(condition) + "') ";
    }

    private static String quote(String text) {
        return text.replace("\\", "\\\\").replace("'", "\\'");
    }

    /** @return where {@code word} stands as a whole word outside strings and brackets, from {@code from}, or -1 */
    private static int keyword(String text, String word, int from) {
        int depth = 0;
        char quote = 0;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            } else if (depth == 0 && text.startsWith(word, i) && (i == 0 || !isWord(text.charAt(i - 1)))
                    && (i + word.length() >= text.length() || !isWord(text.charAt(i + word.length())))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isWord(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    private void raw(int start, int[] openEnd) {
        Matcher m = RAW_END.matcher(s);
        if (!m.find(openEnd[1])) {
            throw unclosed("raw block", start);
        }
        int from = openEnd[1];
        String body = s.substring(from, m.start());
        if (openEnd[2] == '-') {
            body = Python.strip(body, null, true, false);
        }
        if (m.group(1).equals("-")) {
            body = Python.strip(body, null, false, true);
        } else if (!m.group(1).equals("+")) {
            int lineStart = body.lastIndexOf('\n') + 1;
            if (lineStart > 0 && body.substring(lineStart).chars().allMatch(c -> c == ' ' || c == '\t')) {
                body = body.substring(0, lineStart);
            }
        }
        out.append("{% raw %}").append(body).append("{% endraw %}");
        afterTag(m.end(), m.group(2).isEmpty() ? 0 : m.group(2).charAt(0), true);
    }

    /**
     * Finds the end of a tag whose closing delimiter is {@code close} followed by {@code '}'}, outside strings and
     * brackets.
     *
     * @return {content end, index after the delimiter, the marker before it ('-', '+' or 0)}
     */
    private int[] end(int from, char close, int start, String what) {
        int depth = 0;
        char quote = 0;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            if (c == '\'' || c == '"') {
                quote = c;
            } else if (depth == 0 && (c == '-' || c == '+') && i + 2 < s.length() && s.charAt(i + 1) == close
                    && s.charAt(i + 2) == '}') {
                return new int[] {i, i + 3, c};
            } else if (depth == 0 && c == close && i + 1 < s.length() && s.charAt(i + 1) == '}') {
                return new int[] {i, i + 2, 0};
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth = Math.max(0, depth - 1);
            }
        }
        throw unclosed(quote != 0 ? "string in an " + what : what, start);
    }

    /** After a tag: {@code -} eats all white space, else a block or comment eats one newline (trim_blocks). */
    private void afterTag(int at, int mark, boolean trims) {
        pos = at;
        if (mark == '-') {
            while (pos < s.length() && Python.isSpace(s.codePointAt(pos))) {
                pos += Character.charCount(s.codePointAt(pos));
            }
        } else if (mark != '+' && trims && pos < s.length() && s.charAt(pos) == '\n') {
            pos++;
        }
        lineStarting = pos > 0 && s.charAt(pos - 1) == '\n';
    }

    /** Puts a space between adjacent closing braces outside strings, so that Jinjava does not end the tag there. */
    private static String spacedBraces(String content) {
        StringBuilder b = new StringBuilder(content.length() + 4);
        char quote = 0;
        for (int i = 0; i < content.length(); i++) {
            char c = content.charAt(i);
            b.append(c);
            if (quote != 0) {
                if (c == '\\' && i + 1 < content.length()) {
                    b.append(content.charAt(++i));
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if ((c == '}' || c == '%') && i + 1 < content.length() && content.charAt(i + 1) == '}') {
                b.append(' ');
            }
        }
        return " " + b.toString().strip() + " ";
    }

    private int line(int at) {
        int n = 1;
        for (int i = 0; i < at; i++) {
            if (s.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    private ChatTemplateException unclosed(String what, int start) {
        return new ChatTemplateException("the chat template has an unclosed " + what + " at line " + line(start));
    }
}
