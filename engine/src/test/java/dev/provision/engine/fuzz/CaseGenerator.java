package dev.provision.engine.fuzz;

import static dev.provision.engine.fuzz.FuzzCase.DIR;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

/**
 * Generates case {@code i} of a seed, the same every time: four kinds, each run so that nothing
 * outside the test's directory is touched. Mutated playbooks and inventories are only loaded
 * ({@code --syntax-check}, {@code --list-tasks}, {@code --list-hosts}), never run; expressions run for
 * real, on localhost, inside a playbook whose modules only read variables; command lines always carry
 * one of those modes or {@code --check}.
 */
final class CaseGenerator {
    private static final List<String> LOAD_ONLY = List.of("--syntax-check", "--list-tasks", "--list-hosts");
    private static final List<String> COUNTS = List.of("0", "-1", "1", "5", "2147483647", "2147483648", "99999999999",
            "", " 5", "1e3", "0x10", "ten");
    private static final List<String> EXTRA_VARS = List.of("a=1", "a='unterminated", "a=b\\", "@/dev/zero",
            "@" + DIR + "/missing.yml", "@" + DIR, "@" + DIR + "/bad-utf8.yml", "@" + DIR + "/laughs.yml",
            "@" + DIR + "/vars.yml", "{a: [1, 2}", "{a: &x [*x]}", "{1: 2}", "[1, 2]", "=x", "a", "",
            "{\"a\": {\"b\": [1, 2]}}", "{a: !!binary aGk=}", "{<<: *x}", "{a: \"${.main}\"}", "n=${1..}");
    private static final List<String> PATTERNS = List.of("localhost", "all", "nohost", "!localhost", "a[1:2]", "node[3:1]",
            "", "~.*", "~[", "&x", "all:&none", "localhost,other", "${x}");
    private static final List<String> TAGS = List.of("hello", "", ",", "a,,b", "all", "never", "tagged");
    private static final List<String> INVENTORIES = List.of("localhost,", DIR + "/hosts.yml", DIR, DIR + "/missing",
            "a,b", ",", "/dev/null", "localhost,localhost");
    private static final List<String> BENIGN = List.of("ok", "1", "'true'", "'true'", "[1]");

    private final long seed;

    CaseGenerator(long seed) {
        this.seed = seed;
    }

    FuzzCase generate(int index) {
        Mutator m = new Mutator(new Random(seed * 1_000_003L + index));
        int kind = m.between(0, 99);
        if (kind < 40) {
            return playbook(index, m);
        }
        if (kind < 60) {
            return inventory(index, m);
        }
        if (kind < 85) {
            return expression(index, m);
        }
        return commandLine(index, m);
    }

    private static FuzzCase playbook(int index, Mutator m) {
        Map<String, byte[]> files = utf8(Seeds.PLAYBOOK_FILES);
        List<String> yamlFiles = new ArrayList<>(new TreeSet<>(Seeds.PLAYBOOK_FILES.keySet()));
        yamlFiles.removeIf(name -> !name.endsWith(".yml"));
        String target = m.chance(60) ? "site.yml" : m.pick(yamlFiles);
        byte[] mutated = m.yaml(Seeds.PLAYBOOK_FILES.get(target));
        files.put(target, mutated);
        String mode = m.pick(LOAD_ONLY);
        return new FuzzCase(index, "playbook", target + " mutated, " + mode, files,
                List.of(mode, "-i", "localhost,", DIR + "/site.yml"), target + ":\n" + text(mutated));
    }

    private static FuzzCase inventory(int index, Mutator m) {
        Map<String, byte[]> files = utf8(Seeds.INVENTORY_FILES);
        String target = m.chance(70) ? "inventory/hosts.yml"
                : m.pick(List.of("inventory/group_vars/gpu.yml", "inventory/host_vars/cpu1.yml"));
        byte[] mutated = m.yaml(Seeds.INVENTORY_FILES.get(target));
        files.put(target, mutated);
        String source = m.chance(50) ? DIR + "/inventory" : DIR + "/inventory/hosts.yml";
        String mode = m.chance(70) ? "--list-hosts" : m.pick(LOAD_ONLY);
        return new FuzzCase(index, "inventory", target + " mutated, " + mode, files,
                List.of(mode, "-i", source, DIR + "/list.yml"), target + ":\n" + text(mutated));
    }

    private static FuzzCase expression(int index, Mutator m) {
        String expression = m.chance(12) ? m.pick(Seeds.RUNAWAY)
                : m.chance(30) ? m.pick(Seeds.EXPRESSIONS) : m.expression(m.pick(Seeds.EXPRESSIONS));
        int slot = m.between(0, BENIGN.size() - 1);
        boolean bare = slot == 2 || slot == 3; // assert's 'that' and 'when' take bare expressions
        String written = bare || expression.contains("${") || expression.contains("<#") ? expression : "${" + expression + "}";
        List<Object> values = new ArrayList<>(BENIGN);
        values.set(slot, "'" + written.replace("'", "''") + "'");
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("probe.yml", Seeds.PROBE_PLAYBOOK.formatted(values.toArray()).getBytes(StandardCharsets.UTF_8));
        files.put("known_hosts", new byte[0]);
        return new FuzzCase(index, "expression", "expression in slot " + slot + ", --check", files,
                List.of("--check", "-i", "localhost,", "--known-hosts", DIR + "/known_hosts", DIR + "/probe.yml"),
                written);
    }

    private static FuzzCase commandLine(int index, Mutator m) {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("probe.yml", Seeds.PROBE_PLAYBOOK.formatted(BENIGN.toArray()).getBytes(StandardCharsets.UTF_8));
        files.put("hosts.yml", "all:\n  hosts:\n    localhost: {ansible_connection: local}\n".getBytes(StandardCharsets.UTF_8));
        files.put("vars.yml", "a: 1\n".getBytes(StandardCharsets.UTF_8));
        files.put("bad-utf8.yml", new byte[] {'a', ':', ' ', (byte) 0xff, '\n'});
        files.put("laughs.yml", laughs().getBytes(StandardCharsets.UTF_8));
        files.put("known_hosts", new byte[0]);
        String mode = m.pick(List.of("--syntax-check", "--list-tasks", "--list-hosts", "--check"));
        List<String> args = new ArrayList<>();
        for (int i = m.between(0, 6); i > 0; i--) {
            if (m.chance(35)) {
                args.add(m.pick(m.chance(90) ? Seeds.CLI_OPTIONS : List.of("-K", "--nope", "-Z", "--", "-", "")));
            } else {
                String option = m.pick(Seeds.CLI_OPTIONS_WITH_VALUE);
                String value = m.chance(5) ? "x".repeat(5000) : valueFor(option, mode, m);
                if (m.chance(15)) {
                    args.add(option + (option.startsWith("--") ? "=" : "") + value);
                } else {
                    args.add(option);
                    if (m.chance(95)) {
                        args.add(value);
                    }
                }
            }
        }
        args.add(m.between(0, args.size()), mode);
        String playbook = m.chance(85) ? DIR + "/probe.yml"
                : m.pick(List.of(DIR + "/missing.yml", DIR, "/dev/null", "", DIR + "/vars.yml"));
        args.add(m.chance(80) ? args.size() : m.between(0, args.size()), playbook);
        if (m.chance(5)) {
            args.add(playbook); // twice
        }
        if (mode.equals("--check")) {
            // A run contacts the inventory's hosts: keep it to this machine.
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                if (arg.startsWith("-i") && arg.length() > 2 || arg.startsWith("--inventory=")) {
                    args.set(i, "-ilocalhost,");
                }
            }
            args.addAll(0, List.of("--known-hosts", DIR + "/known_hosts"));
        }
        return new FuzzCase(index, "command line", mode, files, args, String.join(" ", args));
    }

    private static String valueFor(String option, String mode, Mutator m) {
        return switch (option) {
            case "-f", "--forks", "--connect-timeout" -> m.pick(COUNTS);
            case "-e", "--extra-vars" -> m.pick(EXTRA_VARS);
            case "-l", "--limit", "--replaced" -> m.pick(PATTERNS);
            case "-t", "--tags", "--skip-tags" -> m.pick(TAGS);
            case "--start-at-task" -> m.pick(List.of("probe", "nope", "", "set_fact"));
            case "-i" -> mode.equals("--check") ? "localhost," : m.pick(INVENTORIES);
            case "--json" -> m.pick(List.of(DIR + "/report.json", DIR, DIR + "/missing-dir/report.json"));
            default -> m.number();
        };
    }

    /** Thirty levels of doubling aliases: 2^30 values from a few hundred bytes. */
    private static String laughs() {
        StringBuilder text = new StringBuilder("l0: &l0 [lol, lol]\n");
        for (int i = 1; i <= 30; i++) {
            text.append('l').append(i).append(": &l").append(i).append(" [*l").append(i - 1).append(", *l").append(i - 1)
                    .append("]\n");
        }
        return text.toString();
    }

    private static Map<String, byte[]> utf8(Map<String, String> files) {
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        new TreeSet<>(files.keySet()).forEach(name -> bytes.put(name, files.get(name).getBytes(StandardCharsets.UTF_8)));
        return bytes;
    }

    private static String text(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        return text.length() <= 1500 ? text : text.substring(0, 1500) + "\n[... " + text.length() + " characters]";
    }
}
