package dev.provision.modules.system;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.text.ShellWords;
import java.util.List;

/**
 * {@code reboot} (Ansible's {@code ansible.builtin.reboot}): restarts the host and waits until it is
 * back: a new boot (its boot id changed, not the old system still shutting down), settled for
 * {@code post_reboot_delay}, and {@code test_command} succeeding, within {@code reboot_timeout}
 * seconds, else the host is unreachable. The restart is started detached from the connection, so
 * that the task does not fail when the connection drops; the engine does the waiting. A restart
 * is always a change (a dry run says it would restart).
 *
 * <p>Parameters as Ansible's: {@code reboot_timeout} (600), {@code pre_reboot_delay} and
 * {@code post_reboot_delay} (seconds, 0), {@code test_command} ({@code whoami}), {@code msg},
 * {@code reboot_command} (a shell command; {@code shutdown -r now} with the message by default),
 * {@code boot_time_command} (what tells one boot from the next; the kernel's boot id by default).
 */
public final class RebootModule implements TaskModule {
    static final String BOOT_ID = "cat /proc/sys/kernel/random/boot_id";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .withDefault("reboot_timeout", Type.INT, 600)
            .withDefault("pre_reboot_delay", Type.INT, 0)
            .withDefault("post_reboot_delay", Type.INT, 0)
            .withDefault("test_command", Type.STRING, "whoami")
            .withDefault("msg", Type.STRING, "Reboot initiated by provision")
            .optional("reboot_command", Type.STRING)
            .withDefault("boot_time_command", Type.STRING, BOOT_ID)
            .optional("connect_timeout", Type.INT)
            .optional("search_paths", Type.ANY)
            .build();

    public RebootModule() {
    }

    @Override
    public String name() {
        return "reboot";
    }

    @Override
    public String description() {
        return "restarts the host and waits, bounded, until it is back (a new boot, test_command passing)";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        long timeout = params.integer("reboot_timeout");
        long pre = params.integer("pre_reboot_delay");
        long post = params.integer("post_reboot_delay");
        if (timeout < 1 || pre < 0 || post < 0) {
            throw new ModuleException("reboot_timeout must be at least 1, pre_reboot_delay and post_reboot_delay not negative");
        }
        String bootTime = params.string("boot_time_command");
        ProbeResult before = context.host().probe("sh", "-c", bootTime);
        String bootId = before.stdout().strip();
        if (before.exitCode() != 0 || bootId.isEmpty()) {
            throw new ModuleException("boot_time_command '" + bootTime + "' gave nothing to tell this boot from the next"
                    + (before.stderr().isBlank() ? "" : ": " + before.stderr().strip().lines().findFirst().orElse("")));
        }
        String reboot = params.optString("reboot_command")
                .orElse("shutdown -r now " + ShellWords.quote(params.string("msg")) + " || reboot");
        // detached from the connection (its own session, no terminal, no inherited output): the
        // command that restarts the host must outlive the exchange that started it
        String detached = "nohup setsid sh -c " + ShellWords.quote("sleep " + pre + "; " + reboot)
                + " </dev/null >/dev/null 2>&1 &";
        return Plan.of(new Change("restart " + context.host().name() + " and wait until it is back (at most " + timeout + " s)",
                List.of(), List.of(new Command.Shell(detached),
                new Command.AwaitReboot(List.of("sh", "-c", bootTime), bootId, (int) Math.min(Integer.MAX_VALUE, timeout + pre),
                        (int) Math.min(Integer.MAX_VALUE, post), List.of("sh", "-c", params.string("test_command"))))));
    }
}
