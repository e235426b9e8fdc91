package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Verdict;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.List;
import java.util.Optional;

/**
 * {@code limits_check} (not {@code limits}, the module that configures them): the open-files and
 * locked-memory limits a fresh login session really gets.
 *
 * <p>Why a fresh session: the run's SSH connection was opened before any limits change and keeps
 * its limits, and {@code /etc/security/limits.conf} is applied by pam_limits only when a session
 * opens. {@code session} picks how one is opened:
 * <ul>
 *   <li>{@code runuser} (default): {@code runuser -l USER -c 'ulimit -n; ulimit -l'}, a PAM login
 *       session (Debian's and RHEL's {@code runuser-l} include pam_limits); needs root, asks no
 *       password.
 *   <li>{@code su}: {@code su - USER -c ...}, for systems without runuser (check that
 *       {@code /etc/pam.d/su} enables pam_limits; Debian ships it enabled).
 *   <li>{@code shell}: {@code sh -lc ...}, a login shell without a PAM session: it shows the
 *       connection's inherited limits (systemd or sshd settings), not limits.conf.
 * </ul>
 * Parameters: {@code min_nofile} (default 65535), {@code min_memlock} (KiB; default: must be
 * {@code unlimited}, what RDMA registration wants), {@code user} (default root). Result:
 * {@code nofile}, {@code memlock}.
 */
public final class LimitsCheckModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .withDefault("min_nofile", Type.INT, 65535L)
            .optional("min_memlock", Type.INT)
            .withDefault("user", Type.STRING, "root")
            .choice("session", "runuser", "runuser", "su", "shell")
            .build();

    public LimitsCheckModule() {
    }

    @Override
    public String name() {
        return "limits_check";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    static List<String> command(String session, String user) {
        return switch (session) {
            case "su" -> List.of("su", "-", user, "-c", Ulimits.SCRIPT);
            case "shell" -> List.of("sh", "-lc", Ulimits.SCRIPT);
            default -> List.of("runuser", "-l", user, "-c", Ulimits.SCRIPT);
        };
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        CheckReport report = new CheckReport(name());
        String user = params.string("user");
        if (!user.matches("[a-z_][a-z0-9_.-]*\\$?")) {
            throw new ModuleException("user: '" + user + "' is not a user name");
        }
        ProbeResult r = context.host().probe(command(params.string("session"), user).toArray(String[]::new));
        Ulimits limits;
        try {
            limits = Ulimits.parse(r.stdout());
        } catch (IllegalArgumentException e) {
            return report.add(new CheckResult("limits.session", "failed", "a login session", Verdict.UNKNOWN,
                    "could not run: cannot open a login session (" + params.string("session") + "): " + Probes.firstLine(r)
                            + ": run the check as root (become: true)")).plan();
        }
        long minNofile = params.integer("min_nofile");
        report.add(CheckResult.of(Ulimits.atLeast(limits.nofile(), minNofile), "limits.nofile", limits.nofile(),
                ">= " + minNofile,
                "open files limit too low for a training job: raise nofile in /etc/security/limits.d (cluster.yml), then log in again"));
        Optional<Long> minMemlock = params.optInteger("min_memlock");
        report.add(minMemlock
                .map(min -> CheckResult.of(Ulimits.atLeast(limits.memlockKb(), min), "limits.memlock", limits.memlockKb(),
                        ">= " + min + " KiB",
                        "locked memory limit too low for RDMA: raise memlock in /etc/security/limits.d (cluster.yml), then log in again"))
                .orElse(CheckResult.of(limits.memlockKb().equals(Ulimits.UNLIMITED), "limits.memlock", limits.memlockKb(),
                        Ulimits.UNLIMITED,
                        "locked memory must be unlimited for RDMA registration: set memlock unlimited in /etc/security/limits.d"
                                + " (cluster.yml), then log in again")));
        return report.measured("nofile", limits.nofile()).measured("memlock", limits.memlockKb()).plan();
    }
}
