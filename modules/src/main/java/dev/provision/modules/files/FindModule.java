package dev.provision.modules.files;

import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code find} (Ansible's {@code ansible.builtin.find}): the files under {@code paths} whose base name
 * matches {@code patterns} (globs, or regular expressions matched from the start with
 * {@code use_regex}) and none of {@code excludes}, of {@code file_type}, one level or all
 * ({@code recurse}), hidden ones only with {@code hidden}. The result is {@code files} (each with
 * {@code path}, {@code size}, {@code mode}, {@code mtime}, {@code pw_name}, {@code gr_name},
 * {@code isdir}, {@code isreg}, {@code islnk}), {@code matched} and {@code examined}. Reads only;
 * changes nothing. {@code contains}, {@code age} and {@code size} are refused for now (say what you
 * need instead with a {@code shell} task and {@code changed_when: false}).
 */
public final class FindModule implements TaskModule {
    private static final String NOT_YET = "is not supported yet; use a 'shell' task running find(1) with 'changed_when: false'";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("paths", Type.ANY, "name", "path")
            .withDefault("patterns", Type.ANY, List.of(), "pattern")
            .withDefault("excludes", Type.ANY, List.of(), "exclude")
            .withDefault("use_regex", Type.BOOL, false)
            .choice("file_type", "file", "file", "directory", "link", "any")
            .withDefault("recurse", Type.BOOL, false)
            .withDefault("hidden", Type.BOOL, false)
            .withDefault("follow", Type.BOOL, false)
            .optional("depth", Type.INT)
            .refused("contains", "'contains' " + NOT_YET)
            .refused("age", "'age' " + NOT_YET)
            .refused("size", "'size' " + NOT_YET)
            .build();

    public FindModule() {
    }

    @Override
    public String name() {
        return "find";
    }

    @Override
    public String description() {
        return "lists the files under paths that match patterns (glob or regex); reads, changes nothing";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        Predicate<String> wanted = matcher(strings(params.raw("patterns")), params.bool("use_regex"), true);
        Predicate<String> excluded = matcher(strings(params.raw("excludes")), params.bool("use_regex"), false);
        String type = params.string("file_type");
        List<Map<String, Object>> files = new ArrayList<>();
        int examined = 0;
        List<String> skipped = new ArrayList<>();
        for (String path : strings(params.raw("paths"))) {
            if (!path.startsWith("/")) {
                throw new ModuleException("paths: '" + path + "' must be an absolute path on the host");
            }
            List<String> argv = new ArrayList<>(List.of("find"));
            if (params.bool("follow")) {
                argv.add("-L");
            }
            argv.addAll(List.of(path, "-mindepth", "1"));
            long depth = params.bool("recurse") ? params.optInteger("depth").orElse(-1L) : 1;
            if (depth > 0) {
                argv.addAll(List.of("-maxdepth", String.valueOf(depth)));
            }
            argv.addAll(List.of("-printf", "%y\\t%s\\t%m\\t%T@\\t%u\\t%g\\t%p\\0"));
            ProbeResult r = context.host().probe(argv.toArray(String[]::new));
            if (r.exitCode() != 0 && r.stdout().isEmpty()) {
                skipped.add(path + " (" + r.stderr().strip().lines().findFirst().orElse("cannot be read") + ")");
                continue;
            }
            for (String record : r.stdout().split("\0")) {
                String[] f = record.split("\t", 7);
                if (f.length < 7) {
                    continue;
                }
                examined++;
                String base = f[6].substring(f[6].lastIndexOf('/') + 1);
                boolean hiddenInPath = f[6].substring(path.length()).contains("/.");
                if (hiddenInPath && !params.bool("hidden") || !ofType(f[0], type) || !wanted.test(base) || excluded.test(base)) {
                    continue;
                }
                files.add(entry(f));
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("files", files);
        result.put("matched", files.size());
        result.put("examined", examined);
        result.put("skipped_paths", skipped);
        result.put("msg", skipped.isEmpty() ? "All paths examined" : "Not all paths examined, check warnings for details");
        return Plan.converged("found " + files.size() + " of " + examined + (skipped.isEmpty() ? "" : "; not read: " + String.join(", ", skipped)))
                .withResult(result);
    }

    private static boolean ofType(String y, String type) {
        return switch (type) {
            case "file" -> y.equals("f");
            case "directory" -> y.equals("d");
            case "link" -> y.equals("l");
            default -> true;
        };
    }

    private static Map<String, Object> entry(String[] f) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("path", f[6]);
        e.put("size", Long.parseLong(f[1]));
        e.put("mode", FileStat.octal(Integer.parseInt(f[2], 8)));
        e.put("mtime", Double.parseDouble(f[3]));
        e.put("pw_name", f[4]);
        e.put("gr_name", f[5]);
        e.put("isdir", f[0].equals("d"));
        e.put("isreg", f[0].equals("f"));
        e.put("islnk", f[0].equals("l"));
        return e;
    }

    /** Ansible's rule: no pattern matches everything (for patterns), nothing (for excludes). */
    private static Predicate<String> matcher(List<String> patterns, boolean regex, boolean emptyMatchesAll) throws ModuleException {
        if (patterns.isEmpty()) {
            return name -> emptyMatchesAll;
        }
        List<Predicate<String>> each = new ArrayList<>();
        for (String p : patterns) {
            if (regex) {
                try {
                    Pattern compiled = Pattern.compile(p);
                    each.add(name -> compiled.matcher(name).lookingAt());
                } catch (PatternSyntaxException e) {
                    throw new ModuleException("'" + p + "' is not a regular expression: " + e.getDescription());
                }
            } else {
                PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + p);
                each.add(name -> glob.matches(Path.of(name)));
            }
        }
        return name -> each.stream().anyMatch(m -> m.test(name));
    }

    /** A list, or a comma-separated string as Ansible allows. */
    private static List<String> strings(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        String text = String.valueOf(value).strip();
        return text.isEmpty() ? List.of() : List.of(text.split("\\s*,\\s*"));
    }
}
