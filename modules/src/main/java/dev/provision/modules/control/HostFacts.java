package dev.provision.modules.control;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Host facts: one read-only shell script (one round trip) and a pure parser of its output. Facts are
 * exposed to playbooks under {@code facts.*} (e.g. {@code facts.os_family}, {@code facts.mounts}).
 * The engine gathers them at the start of a play; the {@code setup} module gathers them again.
 */
public final class HostFacts {
    private HostFacts() {
    }

    /** Where Ansible's local facts ({@code ansible_local}) live unless {@code fact_path} says otherwise. */
    public static final String FACT_PATH = "/etc/ansible/facts.d";

    /** Seconds one executable local fact may run: a hung one must not hang the gathering. */
    static final int LOCAL_FACT_SECONDS = 10;

    /**
     * Prints {@code key=value} lines, then sections introduced by {@code --- name}; in the
     * {@code local} section one line per {@code *.fact} file of {@code factPath}: how it was read
     * ({@code file}, or {@code exec:RC} for an executable, run with a time limit), its content in
     * base64, its name. Never fails.
     */
    public static String script(String factPath) {
        return String.join("\n", BASE_SCRIPT,
                "echo '--- local'",
                "for f in " + dev.provision.modules.text.ShellWords.quote(factPath) + "/*.fact; do",
                "  [ -f \"$f\" ] || continue",
                "  n=\"${f##*/}\"",
                "  if [ -x \"$f\" ]; then out=$(timeout " + LOCAL_FACT_SECONDS + " \"$f\" 2>/dev/null); rc=$?;"
                        + " printf 'exec:%s %s %s\\n' \"$rc\" \"$(printf %s \"$out\" | base64 -w0)\" \"${n%.fact}\";",
                "  else printf 'file %s %s\\n' \"$(base64 -w0 <\"$f\")\" \"${n%.fact}\"; fi",
                "done",
                "true");
    }

    private static final String BASE_SCRIPT = String.join("\n",
            "printf 'hostname=%s\\n' \"$(cat /proc/sys/kernel/hostname 2>/dev/null)\"",
            "printf 'fqdn=%s\\n' \"$(hostname -f 2>/dev/null)\"",
            "printf 'kernel=%s\\n' \"$(uname -r)\"",
            "[ -r /etc/debian_version ] && printf 'debian_version=%s\\n' \"$(cat /etc/debian_version)\"",
            "printf 'architecture=%s\\n' \"$(uname -m)\"",
            "printf 'processor_count=%s\\n' \"$(getconf _NPROCESSORS_ONLN 2>/dev/null)\"",
            "printf 'user=%s\\n' \"$(id -un)\"",
            "if [ -d /run/systemd/system ]; then echo service_mgr=systemd; else echo service_mgr=none; fi",
            "for p in apt-get dnf yum zypper; do if command -v $p >/dev/null 2>&1; then echo pkg_mgr=${p%-get}; break; fi; done",
            "echo '--- os-release'; cat /etc/os-release 2>/dev/null",
            "echo '--- meminfo'; grep -E '^(MemTotal|MemAvailable|SwapTotal):' /proc/meminfo 2>/dev/null",
            "echo '--- addresses'; ip -o -4 addr show 2>/dev/null",
            "echo '--- mounts'; cat /proc/mounts 2>/dev/null");

    /** The script, local facts read from {@link #FACT_PATH} (declared after its parts: they must be initialised first). */
    public static final String SCRIPT = script(FACT_PATH);

    public static Map<String, Object> parse(String output) {
        Map<String, Object> facts = new LinkedHashMap<>();
        Map<String, String> osRelease = new LinkedHashMap<>();
        List<String> addresses = new ArrayList<>();
        List<Map<String, Object>> mounts = new ArrayList<>();
        Map<String, Object> local = new java.util.TreeMap<>();
        String section = "";
        for (String line : output.split("\n")) {
            if (line.startsWith("--- ")) {
                section = line.substring(4).trim();
                continue;
            }
            switch (section) {
                case "" -> keyValue(line, '=').ifPresent(kv -> facts.put(kv[0], kv[1]));
                case "os-release" -> keyValue(line, '=').ifPresent(kv -> osRelease.put(kv[0], unquote(kv[1])));
                case "meminfo" -> keyValue(line, ':').ifPresent(kv -> {
                    String kb = kv[1].replace("kB", "").trim();
                    if (kb.matches("\\d+")) {
                        facts.put(kv[0].toLowerCase(Locale.ROOT) + "_mb", Long.parseLong(kb) / 1024);
                    }
                });
                case "addresses" -> {
                    // "2: eth0    inet 10.0.0.5/24 brd ... scope global eth0"
                    String[] f = line.trim().split("\\s+");
                    for (int i = 0; i + 1 < f.length; i++) {
                        if (f[i].equals("inet")) {
                            String addr = f[i + 1].split("/")[0];
                            if (!addr.startsWith("127.")) {
                                addresses.add(addr);
                            }
                        }
                    }
                }
                case "mounts" -> {
                    String[] f = line.split(" ");
                    if (f.length >= 4) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("device", octalUnescape(f[0]));
                        m.put("mount", octalUnescape(f[1]));
                        m.put("fstype", f[2]);
                        m.put("options", f[3]);
                        mounts.add(m);
                    }
                }
                case "local" -> {
                    String[] f = line.split(" ", 3);
                    if (f.length == 3) {
                        local.put(f[2], LocalFacts.value(f[2], f[0], f[1]));
                    }
                }
                default -> { }
            }
        }
        String processors = String.valueOf(facts.getOrDefault("processor_count", ""));
        facts.put("processor_count", processors.matches("\\d+") ? Long.parseLong(processors) : 0L);
        facts.putIfAbsent("pkg_mgr", "unknown");
        facts.put("distribution", osRelease.getOrDefault("ID", "unknown"));
        facts.put("distribution_version", osRelease.getOrDefault("VERSION_ID", ""));
        facts.put("distribution_major_version", osRelease.getOrDefault("VERSION_ID", "").split("\\.")[0]);
        facts.put("os_family", osFamily(osRelease.getOrDefault("ID", ""), osRelease.getOrDefault("ID_LIKE", "")));
        facts.put("all_ipv4_addresses", List.copyOf(addresses));
        facts.put("default_ipv4", addresses.isEmpty() ? "" : addresses.get(0));
        facts.put("mounts", List.copyOf(mounts));
        facts.put("local", java.util.Collections.unmodifiableMap(local));
        return facts;
    }

    static String osFamily(String id, String idLike) {
        String all = (id + " " + idLike).toLowerCase(Locale.ROOT);
        if (all.matches(".*\\b(debian|ubuntu)\\b.*")) {
            return "Debian";
        }
        if (all.matches(".*\\b(rhel|fedora|centos|rocky|almalinux)\\b.*")) {
            return "RedHat";
        }
        if (all.contains("suse")) {
            return "Suse";
        }
        if (all.contains("arch")) {
            return "Archlinux";
        }
        return id.isEmpty() ? "unknown" : id;
    }

    private static java.util.Optional<String[]> keyValue(String line, char sep) {
        int i = line.indexOf(sep);
        if (i <= 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new String[] {line.substring(0, i).trim(), line.substring(i + 1).trim()});
    }

    private static String unquote(String v) {
        if (v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) {
            return v.substring(1, v.length() - 1);
        }
        return v;
    }

    /** /proc/mounts escapes space, tab, newline and backslash as \040 etc. */
    static String octalUnescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length() + 0 && s.substring(i + 1, Math.min(i + 4, s.length())).matches("[0-7]{3}")) {
                sb.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
