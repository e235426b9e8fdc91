package dev.provision.engine.connection;

import dev.provision.modules.text.ShellWords;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
     * The arguments provision does not act on, by name only ({@code -o StrictHostKeyChecking},
     * {@code -C}, {@code -i}): a value may be a secret (a {@code ProxyCommand} with a password).
     * Empty when there are none or the variable is not set; an argument string that does not split
     * as shell words is named whole.
     */
    public static List<String> unused(Map<String, Object> vars, String variable) {
        Object value = vars.get(variable);
        if (value == null || value.toString().isBlank()) {
            return List.of();
        }
        List<String> words;
        try {
            words = ShellWords.split(value.toString());
        } catch (IllegalArgumentException e) {
            return List.of("(unbalanced quotes)");
        }
        Set<String> unused = new LinkedHashSet<>();
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            if (word.length() < 2 || word.charAt(0) != '-') {
                continue; // a flag's value, or a stray word
            }
            char flag = word.charAt(1);
            boolean valueFollows = word.length() == 2 && FLAGS_WITH_VALUE.indexOf(flag) >= 0;
            String given = word.length() > 2 && FLAGS_WITH_VALUE.indexOf(flag) >= 0 ? word.substring(2) : "";
            if (valueFollows && i + 1 < words.size()) {
                given = words.get(++i);
            }
            if (flag == 'J') {
                continue;
            }
            if (flag == 'o') {
                String name = given.strip().split("[=\\s]", 2)[0];
                if (!USED_OPTIONS.contains(name.toLowerCase(Locale.ROOT))) {
                    unused.add("-o " + name);
                }
            } else {
                unused.add(FLAGS_WITH_VALUE.indexOf(flag) >= 0 ? "-" + flag : word);
            }
        }
        return List.copyOf(new ArrayList<>(unused));
    }
}
