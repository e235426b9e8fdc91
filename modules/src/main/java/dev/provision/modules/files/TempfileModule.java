package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.RunTimeValue;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code tempfile} (Ansible's {@code ansible.builtin.tempfile}): a new temporary file or directory
 * on the host, made by the host's {@code mktemp} (GNU coreutils), readable by its owner only
 * ({@code 0600}, a directory {@code 0700}). Its path is the task's result {@code path}
 * ({@code register: t}, then {@code t.path}), known once it has run ({@link RunTimeValue}).
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code state}: {@code file} (default) or {@code directory}.
 *   <li>{@code path}: the directory to make it in, absolute, which must exist; default the host's
 *       {@code $TMPDIR}, else {@code /tmp}.
 *   <li>{@code prefix} (default {@code ansible.}), {@code suffix} (default empty): the name is the
 *       prefix, eight random characters, the suffix; neither may hold a {@code /}.
 * </ul>
 * Every run makes a new one, so the task always changes, as in Ansible. The plan is one
 * {@code mktemp}; its result {@code path} is {@link RunTimeValue#LAST_STDOUT}, what that command
 * prints (what stands for it before it has run is the engine's, see {@link RunTimeValue}).
 */
public final class TempfileModule implements TaskModule {
    /** Python's {@code mkstemp} draws eight random characters too. */
    private static final String RANDOM = "XXXXXXXX";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .choice("state", "file", "file", "directory")
            .optional("path", Type.STRING)
            .withDefault("prefix", Type.STRING, "ansible.")
            .withDefault("suffix", Type.STRING, "")
            .build();

    public TempfileModule() {
    }

    @Override
    public String name() {
        return "tempfile";
    }

    @Override
    public String description() {
        return """
                Creates a new temporary file (or directory, state: directory) on the host with mktemp,
                readable by its owner only, and returns its path: register the task and use REG.path.
                Every run makes a new one, so the task always reports changed; the path is known once mktemp
                has run.""";
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
        boolean directory = params.string("state").equals("directory");
        String prefix = withoutSlash("prefix", params.string("prefix"));
        String suffix = withoutSlash("suffix", params.string("suffix"));
        Optional<String> in = params.optString("path");
        if (in.isPresent()) {
            requireDirectory(context, FilePaths.requireAbsolute("path", in.get()));
        }
        List<String> argv = new ArrayList<>(List.of("mktemp"));
        if (directory) {
            argv.add("-d");
        }
        argv.add(in.map(d -> "--tmpdir=" + d).orElse("--tmpdir"));
        if (!suffix.isEmpty()) {
            argv.add("--suffix=" + suffix);
        }
        argv.add("--");
        argv.add(prefix + RANDOM);
        String kind = directory ? "directory" : "file";
        String where = in.orElse("$TMPDIR or /tmp");
        String name = prefix + RANDOM + suffix;
        Change change = Change.withDiff("create temporary " + kind + " " + name + " in " + where,
                new Diff(in.map(d -> d.endsWith("/") ? d : d + "/").orElse("$TMPDIR/") + name, "state: absent\n", "state: " + kind + "\n"),
                new Command.Exec(argv, new byte[0]));
        return Plan.of(change).withResult(Map.of("path", RunTimeValue.LAST_STDOUT));
    }

    private static String withoutSlash(String param, String value) throws ModuleException {
        if (value.contains("/")) {
            throw new ModuleException(param + " cannot hold a '/' ('" + value + "'); name the directory with path");
        }
        return value;
    }

    private static void requireDirectory(TaskContext context, String path) throws ModuleException {
        Optional<FileStat> stat = FilePaths.statFollowing(context.host(), path);
        if (stat.isEmpty()) {
            throw new ModuleException("path: directory " + path + " does not exist");
        }
        if (stat.get().type() != FileStat.Type.DIRECTORY) {
            throw new ModuleException("path: " + path + " is a " + FilePaths.kind(stat.get()) + ", not a directory");
        }
    }
}
