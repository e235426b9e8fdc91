package dev.provision.modules.system;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code .repo} file read and written as Python's {@code configparser.RawConfigParser} (what
 * Ansible's {@code yum_repository} uses) reads and writes it, so that the files are the same: keys
 * lower-cased, values stripped, an indented line continuing the value above (joined with a newline),
 * {@code #} and {@code ;} lines dropped, {@code =} or {@code :} between key and value. Written back
 * as {@code [section]}, {@code key = value} lines (a newline in a value continued with a tab, so that
 * no value can start a section or a key of its own) and a blank line after each section. Pure;
 * thread-safe.
 */
final class RepoIni {
    private static final Pattern SECTION = Pattern.compile("\\[(?<header>.+)\\]");
    private static final Pattern OPTION = Pattern.compile("(?<option>.*?)\\s*(?<vi>[=:])\\s*(?<value>.*)$");

    private RepoIni() {
    }

    /** Sections in file order, each its keys in file order. */
    static Map<String, Map<String, String>> parse(String path, String text) {
        Map<String, Map<String, List<String>>> sections = new LinkedHashMap<>();
        Map<String, List<String>> current = null;
        String option = null;
        int indent = 0;
        String[] lines = text.replace("\r\n", "\n").replace('\r', '\n').split("\n", -1);
        for (int n = 0; n < lines.length; n++) {
            String raw = lines[n];
            String value = raw.strip();
            boolean comment = value.startsWith("#") || value.startsWith(";");
            if (comment || value.isEmpty()) {
                if (!comment && current != null && option != null) {
                    current.get(option).add(""); // a blank line inside a value; trailing ones are dropped below
                }
                continue;
            }
            int level = raw.length() - raw.stripLeading().length();
            if (current != null && option != null && level > indent) {
                current.get(option).add(value);
                continue;
            }
            indent = level;
            Matcher header = SECTION.matcher(value);
            if (header.lookingAt()) {
                String name = header.group("header");
                if (name.equals("DEFAULT")) {
                    throw new IllegalArgumentException(path + ":" + (n + 1) + ": a [DEFAULT] section is not supported");
                }
                if (sections.containsKey(name)) {
                    throw new IllegalArgumentException(path + ":" + (n + 1) + ": section [" + name + "] appears twice");
                }
                current = new LinkedHashMap<>();
                sections.put(name, current);
                option = null;
            } else if (current == null) {
                throw new IllegalArgumentException(path + ":" + (n + 1) + ": a line before the first [section]");
            } else {
                Matcher m = OPTION.matcher(value);
                if (!m.matches()) {
                    throw new IllegalArgumentException(path + ":" + (n + 1) + ": neither [section] nor key = value");
                }
                option = m.group("option").stripTrailing().toLowerCase(java.util.Locale.ROOT);
                if (option.isEmpty()) {
                    throw new IllegalArgumentException(path + ":" + (n + 1) + ": a value without a key");
                }
                if (current.containsKey(option)) {
                    throw new IllegalArgumentException(path + ":" + (n + 1) + ": key " + option + " appears twice");
                }
                current.put(option, new java.util.ArrayList<>(List.of(m.group("value").strip())));
            }
        }
        Map<String, Map<String, String>> joined = new LinkedHashMap<>();
        sections.forEach((name, keys) -> {
            Map<String, String> values = new LinkedHashMap<>();
            keys.forEach((k, v) -> values.put(k, String.join("\n", v).stripTrailing()));
            joined.put(name, values);
        });
        return joined;
    }

    /** The file as {@code RawConfigParser.write} writes it. */
    static String render(Map<String, Map<String, String>> sections) {
        StringBuilder sb = new StringBuilder();
        sections.forEach((name, keys) -> {
            sb.append('[').append(name).append("]\n");
            keys.forEach((k, v) -> sb.append(k).append(" = ").append(v.replace("\n", "\n\t")).append('\n'));
            sb.append('\n');
        });
        return sb.toString();
    }
}
