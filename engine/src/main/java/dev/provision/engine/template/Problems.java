package dev.provision.engine.template;

import static java.util.Objects.requireNonNull;

import freemarker.core.InvalidReferenceException;
import freemarker.core.NonBooleanException;
import freemarker.core.NonDateException;
import freemarker.core.NonExtendedHashException;
import freemarker.core.NonHashException;
import freemarker.core.NonNumericalException;
import freemarker.core.NonSequenceException;
import freemarker.core.NonSequenceOrCollectionException;
import freemarker.core.NonStringException;
import freemarker.core.NonStringOrTemplateOutputException;
import freemarker.core.ParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns FreeMarker's multi-line exception texts (with tips, stack and Java class names meant for
 * Java developers) into one line for a sysadmin: what is wrong, then what to do.
 */
final class Problems {

    private static final Pattern EVALUATED_TO = Pattern.compile("has evaluated to an? ([a-z_+]+)");
    private static final Pattern LOCATION = Pattern.compile("\\s*\\[in template \"[^\"]*\" at line \\d+, column \\d+]");
    private static final Pattern JAVA_WRAPPER = Pattern.compile("\\s*\\([^()]*wrapped into [^()]*\\)");
    private static final Pattern ENCOUNTERED = Pattern.compile("^Encountered (.+?), but was expecting");
    private static final Pattern IS_DEFINED = Pattern.compile("\\bis\\s+(not\\s+)?defined\\b");
    private static final Pattern WORD_OPERATOR = Pattern.compile("\\s(and|or|not)\\s");
    private static final Pattern NEW_REFUSED = Pattern.compile("Instantiating (\\S+) is not allowed");

    private Problems() {
    }

    /**
     * What went wrong and what to do.
     *
     * @param advice empty when there is nothing useful to add
     */
    record Problem(String what, String advice) {
        Problem {
            requireNonNull(what, "what cannot be null");
            requireNonNull(advice, "advice cannot be null");
        }

        /** {@code what in "quoted"; advice}, the quote left out when empty. */
        String describe(String quoted) {
            String where = quoted.isEmpty() ? "" : " in \"" + quoted + "\"";
            return what + where + (advice.isEmpty() ? "" : "; " + advice);
        }
    }

    /**
     * @param bareExpression true for {@code when:}-style expressions (the advice shows {@code x!"default"}),
     *     false for templates and {@code ${...}} strings (the advice shows {@code ${x!"default"}})
     */
    static Problem of(freemarker.template.TemplateException failure, boolean bareExpression) {
        Optional<String> blamed = Optional.ofNullable(failure.getBlamedExpressionString())
                .map(Problems::withoutOuterParentheses);
        if (failure instanceof InvalidReferenceException && blamed.isPresent()) {
            String name = blamed.get();
            String withDefault = (isPlainName(name) ? name : "(" + name + ")") + "!\"default\"";
            return new Problem("undefined variable '" + name + "'",
                    "define it (vars, group_vars, -e) or give a default with ! (e.g. "
                            + (bareExpression ? withDefault : "${" + withDefault + "}") + ")");
        }
        Optional<String> expected = expectedKind(failure);
        if (expected.isPresent() && blamed.isPresent()) {
            String actual = actualKind(failure.getMessageWithoutStackTop());
            return new Problem("'" + blamed.get() + "' is " + actual + ", not " + expected.get(),
                    adviceFor(blamed.get(), expected.get(), actual));
        }
        String message = failure.getMessageWithoutStackTop();
        if (message.contains("api_builtin_enabled")) {
            return new Problem("?api is not available: templates see plain data, not Java objects", "");
        }
        Matcher refusedClass = NEW_REFUSED.matcher(message);
        if (refusedClass.find()) {
            return new Problem("?new is not available: templates cannot create Java objects (here "
                    + refusedClass.group(1) + ")", "");
        }
        return new Problem(oneLine(message), "");
    }

    /** A syntax error; {@code source} is the text that was parsed, for hints about common mistakes. */
    static Problem ofSyntax(ParseException failure, String source) {
        String message = failure.getEditorMessage() == null ? failure.getMessage() : failure.getEditorMessage();
        String firstLine = message.lines().findFirst().orElse(message).strip();
        Matcher encountered = ENCOUNTERED.matcher(firstLine);
        String what = "syntax error: " + (encountered.find() ? "unexpected " + encountered.group(1) : oneLine(firstLine));
        if (IS_DEFINED.matcher(source).find()) {
            return new Problem(what, "FreeMarker writes 'x is defined' as x?? and 'x is not defined' as !x??");
        }
        if (WORD_OPERATOR.matcher(source).find()) {
            return new Problem(what, "FreeMarker writes and, or, not as &&, ||, !");
        }
        return new Problem(what, "");
    }

    /**
     * {@code (x)} as {@code x}: a bare expression is evaluated inside parentheses, which FreeMarker
     * names when the whole expression is to blame.
     */
    static String withoutOuterParentheses(String expression) {
        if (!expression.startsWith("(") || !expression.endsWith(")")) {
            return expression;
        }
        int depth = 0;
        for (int i = 0; i < expression.length() - 1; i++) {
            depth += switch (expression.charAt(i)) {
                case '(' -> 1;
                case ')' -> -1;
                default -> 0;
            };
            if (depth == 0) {
                return expression; // "(a) + (b)": the first parenthesis closes before the end
            }
        }
        return withoutOuterParentheses(expression.substring(1, expression.length() - 1).strip());
    }

    private static boolean isPlainName(String expression) {
        return expression.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_');
    }

    private static Optional<String> expectedKind(freemarker.template.TemplateException failure) {
        return Optional.ofNullable(switch (failure) {
            case NonBooleanException e -> "a boolean";
            case NonNumericalException e -> "a number";
            case NonStringException e -> "text";
            case NonStringOrTemplateOutputException e -> "text";
            case NonDateException e -> "a date";
            case NonSequenceException e -> "a list";
            case NonSequenceOrCollectionException e -> "a list";
            case NonHashException e -> "a map";
            case NonExtendedHashException e -> "a map";
            default -> null;
        });
    }

    private static String actualKind(String message) {
        Matcher matcher = EVALUATED_TO.matcher(message);
        if (!matcher.find()) {
            return "a value of another kind";
        }
        String kind = matcher.group(1);
        if (kind.contains("string")) {
            return "a string";
        }
        if (kind.contains("sequence") || kind.contains("collection")) {
            return "a list";
        }
        if (kind.contains("hash")) {
            return "a map";
        }
        if (kind.contains("number")) {
            return "a number";
        }
        if (kind.contains("boolean")) {
            return "a boolean";
        }
        if (kind.contains("method")) {
            return "a function";
        }
        return "a " + kind.replace('_', ' ');
    }

    private static String adviceFor(String blamed, String expected, String actual) {
        if (expected.equals("text") && actual.equals("a list")) {
            return "pick one item (" + blamed + "[0]) or join them (" + blamed + "?join(\",\"))";
        }
        if (expected.equals("text") && actual.equals("a map")) {
            return "pick one value (" + blamed + ".key)";
        }
        if (expected.equals("a boolean") && actual.equals("a string")) {
            return "compare it (" + blamed + " == \"yes\") or test it (" + blamed + "?has_content)";
        }
        if (expected.equals("a number") && actual.equals("a string")) {
            return "convert it with " + blamed + "?number";
        }
        return "";
    }

    /** FreeMarker's text without tips, location notes, Java wrapper names or line breaks. */
    static String oneLine(String message) {
        String text = message;
        int tips = text.indexOf("\n----");
        if (tips >= 0) {
            text = text.substring(0, tips);
        }
        StringBuilder kept = new StringBuilder();
        for (String line : text.split("\n")) {
            String stripped = line.strip();
            if (stripped.startsWith("==>") || stripped.equals("The blamed expression:") || stripped.isEmpty()) {
                continue;
            }
            kept.append(kept.isEmpty() ? "" : " ").append(stripped);
        }
        String cleaned = LOCATION.matcher(kept).replaceAll("");
        cleaned = JAVA_WRAPPER.matcher(cleaned).replaceAll("");
        cleaned = cleaned.replaceAll("\\s+", " ").strip();
        while (cleaned.endsWith(":") || cleaned.endsWith(".")) {
            cleaned = cleaned.substring(0, cleaned.length() - 1);
        }
        return cleaned;
    }
}
