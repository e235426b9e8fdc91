package dev.provision.engine.cli;

import dev.provision.engine.migrate.Jinja2;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.text.UnifiedDiff;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code provision migrate FILE...}: rewrites the Jinja2 of Ansible playbooks, vars files and
 * {@code .j2} templates as FreeMarker where the translation is mechanical ({@link Jinja2}), shows
 * the change as a diff, and names every place it could not translate (file:line). Changes nothing
 * without {@code --write}; with it, a YAML file is rewritten in place and a {@code .j2} template
 * gets a {@code .ftl} twin beside it.
 */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = {"Rewrite Jinja2 ({{ x }}, {%% if %%}, when: x is defined) as provision's FreeMarker.",
            "Shows a diff; changes nothing without --write. Exit 0 when everything was translated,",
            "4 when something needs a hand (each place named file:line)."})
final class MigrateCommand implements Callable<Integer> {
    private static final Pattern CONDITION = Pattern.compile("^(\\s*(?:-\\s+)?(?:when|changed_when|failed_when|until):\\s*)(.+?)\\s*$");

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Playbooks, task and vars files (YAML), .j2 templates and ansible.cfg.")
    List<Path> files = new ArrayList<>();

    @Option(names = "--write", description = "Write the translation (YAML in place; FILE.j2 to FILE.ftl).")
    boolean write;

    private final PrintStream out;
    private final PrintStream err;

    MigrateCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws IOException {
        int untranslated = 0;
        // the files given, then the .j2 templates their tasks name (src: x.j2 becomes x.ftl: it must exist)
        java.util.Deque<Path> work = new java.util.ArrayDeque<>(files);
        java.util.Set<Path> seen = new java.util.HashSet<>();
        while (!work.isEmpty()) {
            Path file = work.removeFirst();
            if (!seen.add(file.toAbsolutePath().normalize())) {
                continue;
            }
            if (!Files.isRegularFile(file)) {
                err.println("ERROR: " + file + ": no such file");
                return ExitCode.INVALID_INPUT.code();
            }
            String before = Files.readString(file, StandardCharsets.UTF_8);
            List<String> left = new ArrayList<>();
            boolean j2 = file.toString().endsWith(".j2");
            String after = j2 ? template(file, before, left)
                    : file.getFileName().toString().endsWith(".cfg") ? ansibleCfg(before) : yaml(file, before, left, work::addLast);
            left.forEach(err::println);
            untranslated += left.size();
            Path target = j2 ? file.resolveSibling(file.getFileName().toString().replaceAll("\\.j2$", ".ftl")) : file;
            if (!after.equals(before)) {
                out.print(UnifiedDiff.render(new Diff(target.toString(), before, after), 3));
            }
            // a template's .ftl is written even when nothing in it changed: tasks now name it
            if (write && (!after.equals(before) || j2 && left.isEmpty())) {
                Path tmp = Files.createTempFile(target.toAbsolutePath().getParent(), ".provision-migrate-", ".tmp");
                Files.writeString(tmp, after, StandardCharsets.UTF_8);
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                out.println("wrote " + target);
            }
        }
        if (untranslated > 0) {
            err.println(untranslated + (untranslated == 1 ? " place needs" : " places need") + " a hand (" + untranslated + " left): FreeMarker's"
                    + " equivalents are in the README (Coming from Ansible) and at https://freemarker.apache.org/docs/ref_builtins.html");
            return ExitCode.INVALID_INPUT.code();
        }
        if (!write) {
            out.println("(nothing written; --write writes it)");
        }
        return ExitCode.OK.code();
    }

    /** {@code host_key_checking = False}, which provision refuses, kept as a comment that says why. */
    private static final Pattern HOST_KEY_CHECKING_OFF = Pattern.compile("(?im)^(\\s*host_key_checking\\s*=\\s*(?:false|no|0|off)\\b.*)$");

    /** An ansible.cfg: what provision would refuse becomes a comment; the rest stays as it is. */
    private static String ansibleCfg(String text) {
        return HOST_KEY_CHECKING_OFF.matcher(text).replaceAll(
                "# $1   # provision migrate: host keys are always verified (first contact records the key; --replaced HOST accepts a new one)");
    }

    private static String template(Path file, String text, List<String> left) {
        Optional<String> translated = Jinja2.template(text);
        if (translated.isEmpty()) {
            left.add(file + ": not every expression of this template has a mechanical FreeMarker translation; translate it by hand");
            return text;
        }
        return translated.get();
    }

    /** {@code src: app.conf.j2}: the template that migrate writes as {@code app.conf.ftl}. */
    private static final Pattern J2_SOURCE = Pattern.compile("(\\bsrc:\\s*[\"']?)([^\"'\\s,{}]+)\\.j2(?=[\"']?\\s*(?:[,}#]|$))");

    /** Line by line, so that comments, quoting and layout stay as they were. */
    private static String yaml(Path file, String text, List<String> left, java.util.function.Consumer<Path> templates) {
        String[] lines = text.split("\n", -1);
        int listOfConditionsAt = -1; // the indentation of a 'when:' whose items follow as a YAML list
        for (int i = 0; i < lines.length; i++) {
            Matcher source = J2_SOURCE.matcher(lines[i]);
            StringBuilder rewritten = new StringBuilder();
            while (source.find()) {
                Optional<Path> found = templateOf(file, source.group(2) + ".j2");
                if (found.isPresent()) {
                    templates.accept(found.get());
                    source.appendReplacement(rewritten, Matcher.quoteReplacement(source.group(1) + source.group(2) + ".ftl"));
                } else {
                    left.add(file + ":" + (i + 1) + ": src " + source.group(2) + ".j2 names a template migrate did not find"
                            + " (looked in templates/ beside the file and its role); migrate it by naming it");
                }
            }
            source.appendTail(rewritten);
            lines[i] = rewritten.toString();
            String line = lines[i];
            Matcher item = LIST_ITEM.matcher(line);
            if (listOfConditionsAt >= 0 && item.matches() && item.group(1).length() >= listOfConditionsAt) {
                if (BLOCK_SCALAR.matcher(item.group(2)).matches()) {
                    i = blockCondition(file, lines, i, item.group(1).length(), item.group(1) + "- ", left);
                } else {
                    lines[i] = condition(file, i, item.group(1) + "- ", item.group(2), left).orElse(line);
                }
                continue;
            }
            if (!line.isBlank() && !line.strip().startsWith("#")) {
                listOfConditionsAt = -1;
            }
            Matcher key = CONDITION_LIST.matcher(line);
            if (key.matches()) {
                listOfConditionsAt = key.group(1).length() + (key.group(2) == null ? 0 : key.group(2).length());
                continue;
            }
            Matcher condition = CONDITION.matcher(line);
            if (condition.matches()) {
                if (BLOCK_SCALAR.matcher(condition.group(2)).matches()) {
                    int indent = condition.group(1).length() - condition.group(1).stripLeading().length();
                    i = blockCondition(file, lines, i, indent, condition.group(1), left);
                } else {
                    lines[i] = condition(file, i, condition.group(1), condition.group(2), left).orElse(line);
                }
                continue;
            }
            if (Jinja2.isTemplate(line)) {
                Optional<String> translated = Jinja2.template(line, insideDoubleQuotes(line) ? '\'' : '"');
                if (translated.isPresent()) {
                    lines[i] = translated.get();
                } else {
                    left.add(file + ":" + (i + 1) + ": '" + line.strip() + "' has no mechanical FreeMarker translation");
                }
            }
        }
        return java.util.Arrays.stream(lines).filter(java.util.Objects::nonNull).collect(java.util.stream.Collectors.joining("\n"));
    }

    /** A block scalar's indicator ({@code >}, {@code |-}, {@code >2}) with nothing after it but a comment. */
    private static final Pattern BLOCK_SCALAR = Pattern.compile("[>|][-+]?\\d?\\s*(?:#.*)?");

    /**
     * A condition written as a block scalar ({@code - >} and indented lines below): one expression
     * whatever its line breaks, so it is translated as one and written back on the indicator's line
     * (the lines below it dropped); when it has no translation it stays as written and is named.
     *
     * @param indent the indentation of the key or list item; the block is every deeper or blank line after it
     * @return the index of the block's last line
     */
    private static int blockCondition(Path file, String[] lines, int i, int indent, String prefix, List<String> left) {
        int end = i;
        StringBuilder text = new StringBuilder();
        while (end + 1 < lines.length && (lines[end + 1].isBlank()
                || lines[end + 1].length() - lines[end + 1].stripLeading().length() > indent)) {
            end++;
            text.append(' ').append(lines[end].strip());
        }
        while (end > i && lines[end].isBlank()) {
            end--; // blank lines after the block separate it from what follows: they stay
        }
        String value = text.toString().strip();
        if (value.isEmpty() || !Jinja2.isCondition(value)) {
            return end;
        }
        Optional<String> translated = Jinja2.condition(value);
        if (translated.isEmpty()) {
            left.add(file + ":" + (i + 1) + ": condition '" + value + "' has no mechanical FreeMarker translation");
            return end;
        }
        lines[i] = prefix + quote(translated.get());
        for (int k = i + 1; k <= end; k++) {
            lines[k] = null;
        }
        return end;
    }

    /** Where Ansible looks for a task's template: the role's (or playbook's) templates/, then beside the file. */
    private static Optional<Path> templateOf(Path yaml, String name) {
        Path dir = yaml.toAbsolutePath().getParent();
        for (Path candidate : List.of(dir.resolve("templates").resolve(name), dir.resolveSibling("templates").resolve(name), dir.resolve(name))) {
            if (Files.isRegularFile(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** {@code when:} with nothing after it: its conditions follow as list items. */
    private static final Pattern CONDITION_LIST = Pattern.compile("^(\\s*)(-\\s+)?(?:when|changed_when|failed_when|until):\\s*(?:#.*)?$");
    /** A YAML comment after a plain scalar: blank, then #. */
    private static final Pattern TRAILING_COMMENT = Pattern.compile("\\s+#.*$");
    private static final Pattern LIST_ITEM = Pattern.compile("^(\\s*)-\\s+(.+?)\\s*$");

    /**
     * One condition written after {@code prefix} on line {@code i}: its translation when it is Jinja2
     * and has one (empty when it is not Jinja2, or has none: then it is named in {@code left}).
     */
    private static Optional<String> condition(Path file, int i, String prefix, String written, List<String> left) {
        String comment = "";
        Matcher commented = TRAILING_COMMENT.matcher(written);
        if (!written.startsWith("\"") && !written.startsWith("'") && commented.find()) {
            comment = written.substring(commented.start());
            written = written.substring(0, commented.start());
        }
        String value = unquote(written.strip()).replaceAll("^\\{\\{\\s*(.*?)\\s*\\}\\}$", "$1");
        if (!Jinja2.isCondition(value)) {
            return Optional.empty();
        }
        Optional<String> translated = Jinja2.condition(value);
        if (translated.isEmpty()) {
            left.add(file + ":" + (i + 1) + ": condition '" + value + "' has no mechanical FreeMarker translation");
        }
        String after = comment;
        return translated.map(t -> prefix + quote(t) + after);
    }

    /** Whether the first {@code {{} of the line sits inside a double-quoted YAML scalar (an odd number of " before it). */
    private static boolean insideDoubleQuotes(String line) {
        int at = line.indexOf("{{");
        return at > 0 && line.substring(0, at).chars().filter(c -> c == '"').count() % 2 == 1;
    }

    private static String unquote(String value) {
        if (value.length() >= 2 && (value.startsWith("\"") && value.endsWith("\"") || value.startsWith("'") && value.endsWith("'"))) {
            return value.substring(1, value.length() - 1);
        }
        return value;
    }

    /** A condition as a YAML value: quoted when YAML would read it otherwise ({@code !x??} is a tag). */
    private static String quote(String expression) {
        boolean plain = expression.matches("[A-Za-z_][^#:]*") && !expression.contains(": ");
        return plain ? expression : "'" + expression.replace("'", "''") + "'";
    }
}
