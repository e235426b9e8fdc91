package dev.provision.engine.connection;

import dev.provision.modules.text.ShellWords;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The ssh arguments an Ansible inventory gives a host ({@code ansible_ssh_args},
 * {@code ansible_ssh_common_args}, {@code ansible_ssh_extra_args}), which Ansible hands to {@code ssh}
 * whole. provision has no {@code ssh} to hand them to: it acts on {@code -o ProxyJump}/{@code -J},
 * {@code -o ServerAliveInterval} and {@code -o ServerAliveCountMax} ({@link HostSettings}) and on
 * nothing else, and says so instead of dropping the rest silently.
 */
public final class SshArguments {
    /** In the order ssh sees them (ssh keeps an option's first value). */
    public static final List<String> VARIABLES = List.of("ansible_ssh_args", "ansible_ssh_common_args", "ansible_ssh_extra_args");
    private static final Set<String> USED_OPTIONS = Set.of("proxyjump", "serveraliveinterval", "serveralivecountmax");
    /** ssh's flags that take a value (ssh(1)'s synopsis). */
    private static final String FLAGS_WITH_VALUE = "BbcDEeFIiJLlmOoPpQRSWw";

    private SshArguments() {
    }

    /**
     * The value of {@code -o NAME=VALUE} (also {@code -oNAME=VALUE}, {@code -o 'NAME VALUE'}; the name
     * in any case), the first one given across {@link #VARIABLES}, with the variable that gave it.
     */
    static Optional<Map.Entry<String, String>> option(Map<String, Object> vars, String name) {
        for (String variable : VARIABLES) {
            for (String[] argument : arguments(vars, variable)) {
                if (argument[0].equals("-o")) {
                    String[] option = argument[1].strip().split("\\s*[=\\s]\\s*", 2);
                    if (option[0].equalsIgnoreCase(name)) {
                        return Optional.of(Map.entry(variable, option.length > 1 ? option[1].strip() : ""));
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The arguments provision does not act on, by name only ({@code -o StrictHostKeyChecking},
     * {@code -C}, {@code -i}): a value may be a secret (a {@code ProxyCommand} with a password).
     * Empty when there are none or the variable is not set; an argument string that does not split
     * as shell words is named whole.
     */
    public static List<String> unused(Map<String, Object> vars, String variable) {
        Set<String> unused = new LinkedHashSet<>();
        for (String[] argument : arguments(vars, variable)) {
            switch (argument[0]) {
                case "-J" -> {
                }
                case "-o" -> {
                    String name = argument[1].strip().split("[=\\s]", 2)[0];
                    if (!USED_OPTIONS.contains(name.toLowerCase(Locale.ROOT))) {
                        unused.add("-o " + name);
                    }
                }
                default -> unused.add(argument[0]);
            }
        }
        return List.copyOf(unused);
    }

    /**
     * The variable's ssh arguments as {flag, value} pairs: {@code -o} with its option, {@code -i}
     * with its file, {@code -C} with "", in order; {@code {"(unbalanced quotes)", ""}} for a string
     * that does not split as shell words.
     */
    private static List<String[]> arguments(Map<String, Object> vars, String variable) {
        Object value = vars.get(variable);
        if (value == null || value.toString().isBlank()) {
            return List.of();
        }
        List<String> words;
        try {
            words = ShellWords.split(value.toString());
        } catch (IllegalArgumentException e) {
            return List.<String[]>of(new String[] {"(unbalanced quotes)", ""});
        }
        List<String[]> arguments = new ArrayList<>();
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            if (word.length() < 2 || word.charAt(0) != '-') {
                continue; // a stray word
            }
            char flag = word.charAt(1);
            if (FLAGS_WITH_VALUE.indexOf(flag) < 0) {
                arguments.add(new String[] {word, ""});
            } else if (word.length() > 2) {
                arguments.add(new String[] {"-" + flag, word.substring(2)});
            } else {
                arguments.add(new String[] {"-" + flag, i + 1 < words.size() ? words.get(++i) : ""});
            }
        }
        return arguments;
    }
}
