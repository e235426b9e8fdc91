package dev.provision.engine.template;

import static java.util.Objects.requireNonNull;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import dev.provision.engine.source.SourcePosition;
import freemarker.core.Environment;
import freemarker.core.ParseException;
import freemarker.template.Configuration;
import freemarker.template.Template;
import freemarker.template.TemplateBooleanModel;
import freemarker.template.TemplateModel;
import freemarker.template.TemplateModelException;
import freemarker.template.TemplateNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Stream;

/**
 * Templates and expressions, in FreeMarker syntax: template files rendered on the controller,
 * {@code ${...}} inside YAML values, and bare conditions such as {@code when:}.
 *
 * <p>One engine serves a whole run and is shared by all hosts running in parallel: it is
 * thread-safe, and it parses each template file and each YAML string once, however many hosts use
 * it. It never re-reads a template file that it has already parsed.
 *
 * <h2>For playbook authors</h2>
 * Plain FreeMarker; no extra functions. What Ansible users reach for:
 * <ul>
 *   <li>{@code ${x!"default"}} gives a default; {@code (facts.a.b)!"d"} covers every step;
 *       {@code x??} is {@code x is defined}, {@code !x??} is {@code x is not defined}.
 *   <li>{@code ${servers?join(",")}}, {@code x?has_content}, {@code list?size}, {@code n?c},
 *       {@code x?upper_case}, {@code s?split(",")}, {@code list?filter(h -> h?starts_with("gpu"))}.
 *   <li>Conditions use {@code ==}, {@code !=}, {@code <}, {@code &&}, {@code ||}, {@code !}; inside a
 *       template tag write {@code gt}/{@code gte} or wrap the comparison in parentheses.
 *   <li>A YAML string that is exactly one {@code ${expr}} keeps the expression's type (list, map,
 *       number, boolean), so {@code loop: "${groups.gpu}"} loops over a list.
 *   <li>A literal {@code ${} (a shell variable) is written {@code ${r"${HOME}"}} or inside
 *       {@code <#noparse>...</#noparse>}. {@code #{...}} is never special.
 *   <li>Undefined variables are errors, never empty text. Numbers print as {@code 65535}, booleans as
 *       {@code true}/{@code false}, dates in ISO 8601 (UTC).
 * </ul>
 *
 * <h2>Sandbox</h2>
 * Templates see plain data only (text, numbers, booleans, dates, lists, maps): no Java object, no
 * method call, no {@code ?new}, no {@code ?api}, no {@code ?interpret}; template files are read only
 * from their roots.
 * The whole configuration is in {@code SandboxedConfiguration}.
 *
 * <h2>Limits</h2>
 * One render or expression may spend a few seconds of CPU, a bounded amount of memory, output and
 * value size, and a bounded recursion depth ({@code Limits}); past one it fails like any other
 * mistake, at its position, and the run goes on. {@code EvaluationGuard} says how.
 */
public final class TemplateEngine {
    /** The variable a bare expression is assigned to, so that its value can be read back natively. */
    private static final String RESULT_VARIABLE = "provision_expression_value";
    /** YAML strings come from playbooks (not from hosts), so a bound this size keeps them all in practice. */
    private static final int INLINE_CACHE_SIZE = 20_000;
    private static final String INLINE_TEMPLATE_NAME = "value";

    private final List<Path> defaultTemplateRoots;
    private final Limits limits;
    private final EvaluationGuard guard;
    private final Configuration inlineConfiguration;
    private final Cache<String, Inline> inlineTemplates =
            CacheBuilder.newBuilder().maximumSize(INLINE_CACHE_SIZE).build();
    private final ConcurrentMap<List<Path>, TemplateRoots> templateRoots = new ConcurrentHashMap<>();

    /** A YAML string parsed, and whether it can be evaluated in the caller's thread. */
    private record Inline(Template template, boolean straightLine) {
    }

    /** @param defaultTemplateRoots the repository's {@code templates/} directories, searched after every search path */
    public TemplateEngine(List<Path> defaultTemplateRoots) {
        this(defaultTemplateRoots, Limits.DEFAULT);
    }

    TemplateEngine(List<Path> defaultTemplateRoots, Limits limits) {
        this.defaultTemplateRoots = List.copyOf(requireNonNull(defaultTemplateRoots, "defaultTemplateRoots cannot be null"));
        this.limits = requireNonNull(limits, "limits cannot be null");
        this.guard = new EvaluationGuard(limits);
        this.inlineConfiguration = SandboxedConfiguration.create(null, limits);
    }

    /**
     * Renders a template file found on the controller.
     *
     * @param templateName relative to the roots, e.g. {@code chrony.conf.ftl} or {@code sub/x.ftl}; an
     *     absolute name or one that backs out of the roots with {@code ..} is refused
     * @param searchPath searched in order (e.g. the role's then the playbook's {@code templates/}),
     *     before the default roots; directories that do not exist are allowed
     * @param vars the host's variables
     * @throws TemplateException when the template is missing (the message names every directory
     *     searched), malformed, or fails to render (the position is the template file, line and column)
     */
    public String render(String templateName, List<Path> searchPath, Map<String, Object> vars) throws TemplateException {
        requireNonNull(templateName, "templateName cannot be null");
        requireNonNull(searchPath, "searchPath cannot be null");
        requireNonNull(vars, "vars cannot be null");
        refuseNameOutsideRoots(templateName);
        List<Path> roots = Stream.concat(searchPath.stream(), defaultTemplateRoots.stream()).toList();
        TemplateRoots lookup = templateRoots.computeIfAbsent(
                roots.stream().map(root -> root.toAbsolutePath().normalize()).toList(),
                key -> TemplateRoots.open(roots, limits));
        Template template = lookup.load(templateName);
        try {
            return guard.run(template, lookup.isStraightLine(template), () -> {
                BoundedWriter output = new BoundedWriter(limits.outputChars());
                template.process(vars, output);
                return output.toString();
            });
        } catch (freemarker.template.TemplateException failure) {
            throw lookup.failure(failure);
        } catch (LimitExceeded limit) {
            // Where it ran away is not known (it may still be running): the task's position is prefixed.
            throw new TemplateException(SourcePosition.UNKNOWN,
                    "template '" + templateName + "' " + limit.getMessage(), limit);
        } catch (IOException unreadable) {
            throw new TemplateException(SourcePosition.UNKNOWN,
                    "cannot render template '" + templateName + "': " + unreadable.getMessage(), unreadable);
        }
    }

    /**
     * Renders the strings inside a YAML-shaped value. A string holding {@code ${}, {@code <#} or
     * {@code [#} is rendered; one that is exactly one {@code ${expr}} (blanks around it ignored)
     * becomes the expression's native value (String, Boolean, Number, List, Map, Date). Maps (values
     * only, not keys) and lists are rebuilt, unmodifiable, with their content interpolated, or
     * returned as they are when nothing in them needed rendering. Anything else, null included,
     * is returned as it is.
     *
     * @param where where the value was written, the position of every error message
     */
    public Object interpolate(Object value, Map<String, Object> vars, SourcePosition where) throws TemplateException {
        requireNonNull(vars, "vars cannot be null");
        requireNonNull(where, "where cannot be null");
        return switch (value) {
            case String text -> interpolateText(text, vars, where);
            case Map<?, ?> map -> interpolateMap(map, vars, where);
            case List<?> list -> interpolateList(list, vars, where);
            case null, default -> value;
        };
    }

    /**
     * Evaluates a bare boolean expression, as written in {@code when:} (e.g.
     * {@code facts.os_family == "Debian" && x?has_content}). A condition wrapped in {@code ${...}} is
     * accepted too.
     *
     * @throws TemplateException when the expression is malformed, names an undefined variable, or is
     *     not a boolean
     */
    public boolean test(String expression, Map<String, Object> vars, SourcePosition where) throws TemplateException {
        requireNonNull(expression, "expression cannot be null");
        requireNonNull(vars, "vars cannot be null");
        requireNonNull(where, "where cannot be null");
        TemplateModel model = evaluateBare(expression, vars, where, value -> value);
        try {
            if (model instanceof TemplateBooleanModel condition) {
                return condition.getAsBoolean();
            }
        } catch (TemplateModelException failure) {
            throw new TemplateException(where, "expression '" + expression.strip() + "' failed: "
                    + Problems.oneLine(failure.getMessage()), failure);
        }
        String kind = NativeValues.kindOf(model);
        String text = expression.strip();
        String advice = switch (kind) {
            case "a string" -> "; compare it (" + text + " == \"yes\") or test it (" + text + "?has_content)";
            case "a number" -> "; compare it (" + text + " > 0)";
            case "a list", "a map" -> "; test it (" + text + "?has_content)";
            default -> "";
        };
        throw new TemplateException(where, "expression '" + text + "' is " + kind + ", not a boolean" + advice);
    }

    /**
     * The native value of a bare expression: String, Boolean, Number (whole numbers as Integer or
     * Long), Date, List or Map. An expression wrapped in {@code ${...}} is accepted too.
     *
     * @throws TemplateException when the expression is malformed, names an undefined variable, or is
     *     a function rather than a value
     */
    public Object evaluate(String expression, Map<String, Object> vars, SourcePosition where) throws TemplateException {
        requireNonNull(expression, "expression cannot be null");
        requireNonNull(vars, "vars cannot be null");
        requireNonNull(where, "where cannot be null");
        return evaluateBare(expression, vars, where, this::toJava);
    }

    /**
     * Parses, without evaluating, every template string inside a YAML-shaped value, as
     * {@link #interpolate} would render it: for {@code --syntax-check} and the checks before a run.
     *
     * @throws TemplateException at {@code where} when a string is not a well-formed template
     */
    public void parse(Object value, SourcePosition where) throws TemplateException {
        switch (value) {
            case String text when TemplateText.needsRendering(text) -> {
                Optional<String> single = TemplateText.singleExpression(text);
                if (single.isPresent()) {
                    parseExpression(single.get(), where);
                } else {
                    parseInline(text, text, text, where, 0);
                }
            }
            case Map<?, ?> map -> {
                for (Object v : map.values()) {
                    parse(v, where);
                }
            }
            case List<?> list -> {
                for (Object item : list) {
                    parse(item, where);
                }
            }
            case null, default -> {
            }
        }
    }

    /** Parses, without evaluating, a bare expression as {@link #test} and {@link #evaluate} take it. */
    public void parseExpression(String expression, SourcePosition where) throws TemplateException {
        String bare = TemplateText.singleExpression(expression).orElse(expression);
        parseInline("<#assign " + RESULT_VARIABLE + " = (\n" + bare + "\n)>", bare, expression, where, 1);
    }

    private <T> T evaluateBare(String expression, Map<String, Object> vars, SourcePosition where, Reading<T> reading)
            throws TemplateException {
        Optional<String> wrapped = TemplateText.singleExpression(expression);
        if (wrapped.isPresent()) {
            return evaluateModel(wrapped.get(), vars, where, expression, false, reading);
        }
        return evaluateModel(expression, vars, where, expression, true, reading);
    }

    /** What is read from an expression's value, inside the evaluation's limits (a lazy list runs when read). */
    private interface Reading<T> {
        T read(TemplateModel model) throws TemplateModelException;
    }

    private Object interpolateText(String text, Map<String, Object> vars, SourcePosition where) throws TemplateException {
        if (!TemplateText.needsRendering(text)) {
            return text;
        }
        Optional<String> single = TemplateText.singleExpression(text);
        if (single.isPresent()) {
            return evaluateModel(single.get(), vars, where, text, false, this::toJava);
        }
        Inline inline = parseInline(text, text, text, where, 0);
        try {
            return guard.run(inline.template(), inline.straightLine(), () -> {
                BoundedWriter output = new BoundedWriter(limits.outputChars());
                inline.template().process(vars, output);
                return output.toString();
            });
        } catch (freemarker.template.TemplateException failure) {
            String excerpt = TemplateText.excerpt(text, lineOf(failure.getLineNumber()));
            if (failure.getCause() instanceof TemplateNotFoundException) {
                throw new TemplateException(where, new Problems.Problem(
                        "<#include> and <#import> work only in template files", "").describe(excerpt), failure);
            }
            throw new TemplateException(where, Problems.of(failure, false).describe(excerpt), failure);
        } catch (LimitExceeded limit) {
            throw new TemplateException(where, "\"" + TemplateText.excerpt(text, 1) + "\" " + limit.getMessage(), limit);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    private Object interpolateMap(Map<?, ?> map, Map<String, Object> vars, SourcePosition where) throws TemplateException {
        Map<Object, Object> interpolated = new LinkedHashMap<>();
        boolean changed = false;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            Object value = interpolate(entry.getValue(), vars, where);
            changed |= value != entry.getValue();
            interpolated.put(entry.getKey(), value);
        }
        return changed ? Collections.unmodifiableMap(interpolated) : map;
    }

    private Object interpolateList(List<?> list, Map<String, Object> vars, SourcePosition where) throws TemplateException {
        List<Object> interpolated = new ArrayList<>(list.size());
        boolean changed = false;
        for (Object item : list) {
            Object value = interpolate(item, vars, where);
            changed |= value != item;
            interpolated.add(value);
        }
        return changed ? Collections.unmodifiableList(interpolated) : list;
    }

    /**
     * Evaluates an expression by assigning it to a variable and reading the variable back, which
     * keeps its type (FreeMarker has no public API to evaluate an expression alone). The expression
     * starts on a line of its own, so that FreeMarker's columns are the expression's columns.
     *
     * @param quoted the text the user wrote, quoted in error messages
     * @param bare whether the user wrote a bare expression (not {@code ${...}}), for the advice given
     */
    private <T> T evaluateModel(String expression, Map<String, Object> vars, SourcePosition where,
                                String quoted, boolean bare, Reading<T> reading) throws TemplateException {
        String source = "<#assign " + RESULT_VARIABLE + " = (\n" + expression + "\n)>";
        Inline inline = parseInline(source, expression, quoted, where, 1);
        String excerpt = TemplateText.excerpt(quoted, 1);
        try {
            return guard.run(inline.template(), inline.straightLine(), () -> {
                Environment environment = inline.template().createProcessingEnvironment(vars, Writer.nullWriter());
                environment.process();
                return reading.read(environment.getMainNamespace().get(RESULT_VARIABLE));
            });
        } catch (NativeValues.NotAValue failure) {
            throw new TemplateException(where, "cannot use the value of \"" + excerpt + "\": " + failure.getMessage(), failure);
        } catch (freemarker.template.TemplateException failure) {
            throw new TemplateException(where, Problems.of(failure, bare).describe(excerpt), failure);
        } catch (LimitExceeded limit) {
            throw new TemplateException(where, "\"" + excerpt + "\" " + limit.getMessage(), limit);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    /**
     * @param userText what the user wrote, for the message; {@code source} may wrap it
     * @param quoted the text the user wrote around it ({@code ${userText}}), quoted in a refusal
     * @param linesBefore lines of {@code source} before {@code userText} starts
     */
    private Inline parseInline(String source, String userText, String quoted, SourcePosition where, int linesBefore)
            throws TemplateException {
        Inline cached = inlineTemplates.getIfPresent(source);
        if (cached != null) {
            return cached;
        }
        Optional<String> refused = TemplateText.refusal(userText, limits);
        if (refused.isPresent()) {
            throw new TemplateException(where, refused.get() + " (in \"" + TemplateText.excerpt(quoted, 1) + "\")");
        }
        try {
            Template parsed = new Template(INLINE_TEMPLATE_NAME, source, inlineConfiguration);
            SandboxedConfiguration.makeInterruptible(parsed);
            Inline inline = new Inline(parsed, TemplateText.isStraightLine(userText));
            inlineTemplates.put(source, inline);
            return inline;
        } catch (ParseException syntax) {
            throw syntaxFailure(syntax, userText, where, linesBefore);
        } catch (StackOverflowError deep) {
            // The parser recurses once per level of parentheses or nested string.
            throw new TemplateException(where, "\"" + TemplateText.excerpt(userText, 1)
                    + "\" nests too deeply to read; simplify it", null);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    private static TemplateException syntaxFailure(ParseException syntax, String userText, SourcePosition where,
                                                   int linesBefore) {
        int line = syntax.getLineNumber() - linesBefore;
        int userLines = userText.split("\n", -1).length;
        Problems.Problem problem = Problems.ofSyntax(syntax, userText);
        String located;
        if (line < 1 || line > userLines) {
            located = "syntax error: the expression ends too early";
        } else if (userLines == 1) {
            located = problem.what() + " at column " + syntax.getColumnNumber();
        } else {
            located = problem.what() + " at line " + line + ", column " + syntax.getColumnNumber() + " of the value";
        }
        String excerpt = TemplateText.excerpt(userText, Math.max(1, Math.min(line, userLines)));
        return new TemplateException(where, new Problems.Problem(located, problem.advice()).describe(excerpt), syntax);
    }

    private Object toJava(TemplateModel model) throws TemplateModelException {
        return NativeValues.toJava(model, limits);
    }

    private static int lineOf(Integer line) {
        return line == null ? 1 : line;
    }

    private static void refuseNameOutsideRoots(String name) throws TemplateException {
        if (name.isBlank()) {
            throw new TemplateException(SourcePosition.UNKNOWN, "template name is empty");
        }
        if (name.indexOf('\0') >= 0) {
            throw new TemplateException(SourcePosition.UNKNOWN, "template name holds a NUL character; write the file's name");
        }
        if (name.startsWith("/") || name.contains("\\") || name.contains(":") || Path.of(name).isAbsolute()) {
            throw new TemplateException(SourcePosition.UNKNOWN, "template name '" + name
                    + "' is not allowed: give a name relative to the template directories (e.g. chrony.conf.ftl)");
        }
        int depth = 0;
        for (String segment : name.split("/")) {
            if (segment.equals("..")) {
                depth--;
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                depth++;
            }
            if (depth < 0) {
                throw new TemplateException(SourcePosition.UNKNOWN, "template name '" + name
                        + "' is not allowed: it leads out of the template directories");
            }
        }
    }
}
