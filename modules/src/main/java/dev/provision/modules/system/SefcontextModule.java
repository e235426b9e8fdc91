package dev.provision.modules.system;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code sefcontext} (Ansible's {@code community.general.sefcontext}): a local SELinux file context
 * rule ({@code semanage fcontext}) present with a type (and user, level) or absent.
 *
 * <p>Decided against the local rules, {@code semanage fcontext -l -C}: a rule for the target and file
 * type is added ({@code -a}), changed where its type, user or level differ ({@code -m}; user and level
 * not given keep theirs), or deleted ({@code -d}). A rule the policy itself ships is not a local one: it
 * is never deleted (semanage cannot), and {@code present} with the same values adds it as a local rule
 * once. As in Ansible, existing files are not relabelled ({@code restorecon} does that), and SELinux
 * disabled fails the task unless {@code ignore_selinux_state}. Where semanage is not installed yet
 * (an earlier task of a dry run installs it) there are no local rules; the run's semanage then says
 * whether it is there.
 */
public final class SefcontextModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("target", Type.STRING, "path")
            .choice("ftype", "a", "a", "b", "c", "d", "f", "l", "p", "s")
            .optional("setype", Type.STRING)
            .optional("seuser", Type.STRING)
            .optional("selevel", Type.STRING, "serange")
            .choice("state", "present", "present", "absent")
            .withDefault("reload", Type.BOOL, true)
            .withDefault("ignore_selinux_state", Type.BOOL, false)
            .refused("substitute", "file context equivalences are not managed; use 'command: semanage fcontext -a -e SUBSTITUTE TARGET'")
            .build();

    public SefcontextModule() {
    }

    @Override
    public String name() {
        return "sefcontext";
    }

    @Override
    public String description() {
        return """
                A local SELinux file context rule (Ansible's community.general.sefcontext), as
                'semanage fcontext' keeps it. Existing files are not relabelled: run restorecon after it.
                  target (alias path): the path expression, e.g. '/srv/data(/.*)?'
                  ftype (default a): a all files, f regular file, d directory, l symbolic link, c, b, p, s
                  setype: the type (required with state present); seuser, selevel (alias serange): kept
                    as they are on an existing rule when not given (new rules: semanage's system_u, s0)
                  reload (default true): false adds -N (no policy reload)
                  ignore_selinux_state (default false): go on when SELinux is disabled
                Read with semanage fcontext -l -C (the local rules only): a rule is added (-a), modified
                (-m) or deleted (-d). A rule the policy ships is never deleted (semanage cannot); present
                with the same values adds it as a local rule once. Not supported: substitute.""";
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
        String target = params.string("target").strip();
        if (!target.startsWith("/") || target.chars().anyMatch(Character::isWhitespace)) {
            throw new ModuleException("target '" + target + "' must be an absolute path expression without blanks,"
                    + " such as '/srv/data(/.*)?'");
        }
        String ftype = params.string("ftype");
        String fileType = Selinux.FILE_TYPES.get(ftype);
        boolean present = params.string("state").equals("present");
        HostView host = context.host();
        if (!enabled(host) && !params.bool("ignore_selinux_state")) {
            throw new ModuleException("SELinux is disabled on this host.");
        }
        ProbeResult listed = host.probe(Selinux.LOCAL_FCONTEXTS.toArray(String[]::new));
        String listing;
        if (listed.ok()) {
            listing = listed.stdout();
        } else if (listed.exitCode() == 127) {
            listing = "";
        } else {
            throw new ModuleException("cannot list local SELinux file contexts (semanage fcontext -l -C exited " + listed.exitCode()
                    + "): " + (listed.stderr().isBlank() ? listed.stdout() : listed.stderr()).strip());
        }
        Optional<Selinux.FileContext> existing = Selinux.parseFileContexts(listing).stream()
                .filter(r -> r.target().equals(target) && r.fileType().equals(fileType)).findFirst();
        String rule = target + " (" + fileType + ")";
        List<String> flags = params.bool("reload") ? List.of() : List.of("-N");
        if (!present) {
            if (existing.isEmpty()) {
                return Plan.converged("no local SELinux file context rule for " + rule);
            }
            List<String> argv = new ArrayList<>(List.of("semanage", "fcontext", "-d", "-f", ftype));
            argv.addAll(flags);
            argv.add(target);
            return Plan.of(Change.withDiff("delete the SELinux file context rule for " + rule,
                            new Diff("semanage fcontext " + target, existing.get().row().strip() + "\n", ""),
                            Command.Exec.of(argv.toArray(String[]::new))))
                    .withProbeAfterwards(Selinux.LOCAL_FCONTEXTS, new ProbeResult(0,
                            Selinux.withFileContext(listing, target, fileType, Optional.empty()), ""));
        }
        String setype = params.optString("setype").map(String::strip).filter(s -> !s.isEmpty())
                .orElseThrow(() -> new ModuleException("state present needs setype (substitute is not supported)"));
        Optional<String> seuser = params.optString("seuser").map(String::strip).filter(s -> !s.isEmpty());
        Optional<String> selevel = params.optString("selevel").map(String::strip).filter(s -> !s.isEmpty());
        for (String value : List.of(setype, seuser.orElse("x"), selevel.orElse("x"))) {
            if (value.chars().anyMatch(Character::isWhitespace) || value.startsWith("-")) {
                throw new ModuleException("'" + value + "' is not an SELinux type, user or level");
            }
        }
        Optional<Selinux.Context> now = existing.flatMap(Selinux.FileContext::context);
        Selinux.Context wanted = new Selinux.Context(seuser.orElse(now.map(Selinux.Context::user).orElse("system_u")),
                now.map(Selinux.Context::role).orElse("object_r"), setype,
                // Without MLS semanage lists no level and ignores one given: nothing to compare.
                now.isPresent() && now.get().level().isEmpty() ? Optional.empty()
                        : Optional.of(selevel.orElse(now.flatMap(Selinux.Context::level).orElse("s0"))));
        if (now.isPresent() && now.get().equals(wanted)) {
            return Plan.converged("SELinux file context rule for " + rule + " is " + wanted);
        }
        List<String> argv = new ArrayList<>(List.of("semanage", "fcontext", existing.isPresent() ? "-m" : "-a", "-f", ftype, "-t", setype));
        seuser.ifPresent(u -> argv.addAll(List.of("-s", u)));
        selevel.ifPresent(l -> argv.addAll(List.of("-r", l)));
        argv.addAll(flags);
        argv.add(target);
        Selinux.FileContext after = new Selinux.FileContext(target, fileType, Optional.of(wanted));
        return Plan.of(Change.withDiff((existing.isPresent() ? "change" : "add") + " the SELinux file context rule for " + rule
                                + " to " + wanted,
                        new Diff("semanage fcontext " + target, existing.map(e -> e.row().strip() + "\n").orElse(""), after.row().strip() + "\n"),
                        Command.Exec.of(argv.toArray(String[]::new))))
                .withProbeAfterwards(Selinux.LOCAL_FCONTEXTS, new ProbeResult(0,
                        Selinux.withFileContext(listing, target, fileType, Optional.of(after)), ""));
    }

    /** {@code selinuxenabled}: exit 0 enabled, 1 disabled; not installed (127) is disabled too. */
    private static boolean enabled(HostView host) throws ModuleException {
        ProbeResult r = host.probe(Selinux.ENABLED.toArray(String[]::new));
        if (r.exitCode() == 0) {
            return true;
        }
        if (r.exitCode() == 1 || r.exitCode() == 127) {
            return false;
        }
        throw new ModuleException("cannot tell whether SELinux is enabled: selinuxenabled exited " + r.exitCode() + ": "
                + r.stderr().strip());
    }
}
