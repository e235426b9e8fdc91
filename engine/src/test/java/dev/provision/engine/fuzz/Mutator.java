package dev.provision.engine.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Turns valid input into the mistakes people and programs make: text cut off, junk and invalid UTF-8
 * inserted, lines moved, values of the wrong type, huge numbers, deep nesting, aliases that double or
 * recurse, unknown keys, YAML tags, bad expressions. Every choice comes from the {@link Random} it is
 * given, so a case is reproduced from its seed alone.
 */
final class Mutator {
    private static final List<String> NASTY_SCALARS = List.of(
            "99999999999999999999999999", "-1", "0", "-0", "1e999", ".nan", "-.inf", "0x", "0xFFFFFFFFFFFFFFFFFFFF",
            "0o9", "0b102", "1_000", "2147483648", "9223372036854775808", "1:30:00", "0644", "[]", "{}", "~", "null",
            "yes", "off", "\"\"", "''", "[a, [b, [c]]]", "{a: {b: {c: d}}}", "!!binary aGVsbG8=", "!!python/object:os.system x",
            "!vault |\n  $ANSIBLE_VAULT;1.1;AES256", "!custom x", "!!set {a, b}", "!!omap [a: 1]", "!!timestamp 2001-12-14",
            "!!float x", "!!int abc", "!!str 1", "!!map [1]", "*undefined", "&a [*a]", "&b {c: *b}", "&m {<<: *m}", "*defaults",
            "{<<: [*defaults, *defaults]}", "{<<: 1}", "\"${\"", "\"${x\"", "\"${missing}\"", "\"{{ jinja }}\"", "\"${.main}\"",
            "\"<#list 1..3 as i>${i}</#list>\"", "\"<#macro m><@m/></#macro><@m/>\"", "\"\\0\"", "\"a\\0b\"", "\"\\u202e\"",
            "\"\\e[31m\"", "\"a\\nb\"", "../../etc/passwd", "/etc/shadow", "-oProxyCommand=x", "\"$(reboot)\"", "'h;touch x'",
            "\"\\uD800\"", "\"\\x00\"", "? complex\n: key", "|\n  block", ">-\n  folded", "- item", "%YAML 1.1", "---", "...");
    private static final List<String> KEYS = List.of("hosts", "tasks", "taks", "name", "vars", "roles", "handlers", "block",
            "rescue", "always", "when", "loop", "with_items", "register", "notify", "listen", "become", "tags",
            "import_tasks", "include_tasks", "import_playbook", "vars_files", "serial", "max_fail_percentage",
            "debug", "command", "copy", "template", "argv", "msg", "dest", "src", "role", "<<", "loop_control",
            "loop_var", "until", "retries", "delay", "delegate_to", "environment", "!!binary x", "? x", "children",
            "ansible_host", "ansible_port", "node[1:3]", "node[3:1]", "node[a:z]", "node[01:99999999]", "all", "ungrouped");
    private static final List<String> JUNK = List.of(":", "- ", "[", "]", "{", "}", "'", "\"", "&", "*", "!", "|", ">",
            "#", "%", "@", "`", "\t", ",", "?", "<<: ", "${", "}", "<#", "\\", "\r", "\u0000", "\u001b[2J", "\u00e9",
            "\ufeff", "\u2028", "\ud83d\ude00");
    private static final byte[][] BAD_BYTES = {
        {(byte) 0xff}, {(byte) 0xc3}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xf8, (byte) 0x88},
        {(byte) 0xe2, (byte) 0x82}, {0}, {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, {(byte) 0xc0, (byte) 0xaf}};
    /** Pieces of FreeMarker that go wrong when put in the wrong place. */
    private static final List<String> EXPRESSION_PIECES = List.of("${", "}", "<#", "</#list>", "<#list 1..%d as i>",
            "?left_pad(%d)", "..", "?eval", ".main", "(", ")", "[", "]", "\"", "'", "r\"", "!", "??", "?", "&&", " as ",
            "->", "${x}", "%d", "?string(\"%d\")", "[%d]", "?chunk(%d)", "?then(", ".vars", "+", "<@m/>", "?size");
    /** Large but not so large that one call allocates gigabytes before any limit can look (see TemplateEngine). */
    private static final List<String> NUMBERS = List.of("0", "-1", "1", "2147483647", "2147483648", "99999999999999999999",
            "1000000", "1.5", "-2147483648");

    private final Random random;

    Mutator(Random random) {
        this.random = random;
    }

    <T> T pick(List<T> items) {
        return items.get(random.nextInt(items.size()));
    }

    boolean chance(int percent) {
        return random.nextInt(100) < percent;
    }

    int between(int low, int high) {
        return low + random.nextInt(high - low + 1);
    }

    /** A YAML file, mutated as text or as a tree; bytes, because a mutation may make it invalid UTF-8. */
    byte[] yaml(String valid) {
        String text = chance(55) ? tree(valid) : valid;
        int rounds = text.equals(valid) ? between(1, 3) : between(0, 1);
        for (int i = 0; i < rounds; i++) {
            text = text(text);
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return chance(12) ? bytes(bytes) : bytes;
    }

    /** One textual mistake. */
    String text(String text) {
        if (text.isEmpty()) {
            return pick(JUNK);
        }
        List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
        int line = random.nextInt(lines.size());
        int at = random.nextInt(text.length() + 1);
        switch (random.nextInt(9)) {
            case 0 -> {
                return text.substring(0, at); // cut off
            }
            case 1 -> {
                int end = Math.min(text.length(), at + between(1, 20));
                return text.substring(0, at) + text.substring(end);
            }
            case 2 -> {
                return text.substring(0, at) + pick(JUNK) + text.substring(at);
            }
            case 3 -> lines.add(line, lines.get(line));
            case 4 -> {
                int other = random.nextInt(lines.size());
                String moved = lines.get(line);
                lines.set(line, lines.get(other));
                lines.set(other, moved);
            }
            case 5 -> lines.set(line, chance(50) ? " ".repeat(between(1, 3)) + lines.get(line)
                    : lines.get(line).replaceFirst("^ {1,3}", ""));
            case 6 -> lines.set(line, lines.get(line).replaceFirst(":\\s+\\S.*$", literal(": " + pick(NASTY_SCALARS))));
            case 7 -> lines.set(line, lines.get(line).replaceFirst("^(\\s*-?\\s*)[^:\\s]+:", "$1" + literal(pick(KEYS) + ":")));
            default -> lines.add(line, lines.get(line).replaceFirst("\\S.*$", "") + pick(KEYS) + ": " + pick(NASTY_SCALARS));
        }
        return String.join("\n", lines);
    }

    private static String literal(String replacement) {
        return Matcher.quoteReplacement(replacement);
    }

    /** Invalid UTF-8 or a NUL byte somewhere. */
    byte[] bytes(byte[] bytes) {
        byte[] bad = BAD_BYTES[random.nextInt(BAD_BYTES.length)];
        int at = random.nextInt(bytes.length + 1);
        byte[] out = new byte[bytes.length + bad.length];
        System.arraycopy(bytes, 0, out, 0, at);
        System.arraycopy(bad, 0, out, at, bad.length);
        System.arraycopy(bytes, at, out, at + bad.length, bytes.length - at);
        return out;
    }

    /** The YAML read as plain values, one value replaced, removed or added, written back (aliases included). */
    String tree(String valid) {
        Object root = new Yaml(new LoaderOptions()).load(valid);
        List<Object> containers = new ArrayList<>();
        collect(root, containers, 0);
        if (containers.isEmpty()) {
            return valid;
        }
        Object target = pick(containers);
        if (target instanceof Map<?, ?> raw) {
            @SuppressWarnings("unchecked")
            Map<Object, Object> map = (Map<Object, Object>) raw;
            List<Object> keys = new ArrayList<>(map.keySet());
            switch (random.nextInt(4)) {
                case 0 -> {
                    if (!keys.isEmpty()) {
                        map.remove(pick(keys));
                    }
                }
                case 1 -> map.put(pick(KEYS), value(root));
                default -> {
                    if (!keys.isEmpty()) {
                        map.put(pick(keys), value(root));
                    }
                }
            }
        } else if (target instanceof List<?> raw) {
            @SuppressWarnings("unchecked")
            List<Object> list = (List<Object>) raw;
            if (!list.isEmpty() && chance(30)) {
                list.remove(random.nextInt(list.size()));
            } else if (!list.isEmpty() && chance(50)) {
                list.set(random.nextInt(list.size()), value(root));
            } else {
                list.add(value(root));
            }
        }
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(chance(80) ? DumperOptions.FlowStyle.BLOCK : DumperOptions.FlowStyle.FLOW);
        options.setWidth(200);
        try {
            return new Yaml(options).dump(root);
        } catch (RuntimeException | StackOverflowError cannotWrite) {
            return valid; // a structure the test's own dumper cannot write: not the engine's problem
        }
    }

    private static void collect(Object node, List<Object> into, int depth) {
        if (depth > 30) {
            return;
        }
        if (node instanceof Map<?, ?> map) {
            into.add(map);
            map.values().forEach(v -> collect(v, into, depth + 1));
        } else if (node instanceof List<?> list) {
            into.add(list);
            list.forEach(v -> collect(v, into, depth + 1));
        }
    }

    /** A value of a wrong type or size; sharing {@code root} makes the dumper write an alias that recurses. */
    private Object value(Object root) {
        return switch (random.nextInt(14)) {
            case 0 -> new java.math.BigInteger(pick(List.of("99999999999999999999999999", "-9223372036854775809")));
            case 1 -> pick(List.of(-1, 0, Integer.MAX_VALUE, Long.MIN_VALUE, Double.NaN, Double.NEGATIVE_INFINITY, 1e308));
            case 2 -> pick(Arrays.asList(null, true, "", "yes", List.of(), Map.of()));
            case 3 -> "x".repeat(between(1000, 100_000));
            case 4 -> nested(between(10, 200));
            case 5 -> laughs(between(10, 32));
            case 6 -> root; // recursion through an anchor
            case 7 -> "${" + pick(Seeds.EXPRESSIONS) + (chance(50) ? "}" : "");
            case 8 -> pick(List.of("a\u0000b", "\u202e", "\u001b[31m", "a\nb", "../../etc", "/abs", "-oProxyCommand=x", "h;touch x"));
            case 9 -> {
                List<Object> many = new ArrayList<>();
                for (int i = between(1000, 20_000); i > 0; i--) {
                    many.add(i);
                }
                yield many;
            }
            case 10 -> new LinkedHashMap<>(Map.of(pick(KEYS), pick(NASTY_SCALARS)));
            case 11 -> List.of(Arrays.asList("echo", null));
            default -> pick(NASTY_SCALARS);
        };
    }

    private static Object nested(int depth) {
        Object value = "leaf";
        for (int i = 0; i < depth; i++) {
            value = i % 2 == 0 ? List.of(value) : Map.of("k", value);
        }
        return value;
    }

    /** Each level holds the one below twice: the dumper writes anchors and aliases, the reader would expand 2^levels. */
    private static Object laughs(int levels) {
        Object value = List.of("lol", "lol");
        for (int i = 0; i < levels; i++) {
            value = List.of(value, value);
        }
        return value;
    }

    /** An expression with one or two pieces inserted or the text cut off. */
    String expression(String valid) {
        String text = valid;
        for (int i = between(1, 2); i > 0; i--) {
            int at = random.nextInt(text.length() + 1);
            if (chance(15)) {
                text = text.substring(0, at);
            } else {
                String piece = pick(EXPRESSION_PIECES);
                if (piece.contains("%d")) {
                    piece = piece.replace("%d", pick(NUMBERS));
                }
                text = text.substring(0, at) + piece + text.substring(at);
            }
        }
        return text;
    }

    String number() {
        return pick(NUMBERS);
    }
}
