package dev.provision.modules.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a table row expects of a module: a converged plan with a reason, planned commands (drawn as
 * short strings by {@link #describe}), or a failure whose message contains a text. {@link #check}
 * validates the raw arguments against the module's spec first, as the engine does.
 */
public sealed interface Expect {

    record Converged(String reason) implements Expect {
    }

    record Planned(List<String> commands) implements Expect {
    }

    record Fails(String messagePart) implements Expect {
    }

    static Expect converged(String reason) {
        return new Converged(reason);
    }

    static Expect planned(String... commands) {
        return new Planned(List.of(commands));
    }

    static Expect fails(String messagePart) {
        return new Fails(messagePart);
    }

    /** Validates, plans and checks; returns the plan (null only for an expected failure). */
    static Plan check(TaskModule module, TaskContext context, Map<String, Object> args, Expect expect) {
        if (expect instanceof Fails f) {
            Exception e = assertThrows(Exception.class, () -> module.plan(module.params().validate(args), context));
            assertTrue(e instanceof ModuleException || e instanceof ParamException, "unexpected " + e);
            assertTrue(e.getMessage().contains(f.messagePart()), "message was: " + e.getMessage());
            return null;
        }
        Plan plan;
        try {
            plan = module.plan(module.params().validate(args), context);
        } catch (ModuleException | ParamException e) {
            return fail("unexpected failure: " + e.getMessage(), e);
        }
        switch (expect) {
            case Converged c -> {
                assertEquals(List.of(), describe(plan));
                assertEquals(c.reason(), plan.reason());
            }
            case Planned p -> assertEquals(p.commands(), describe(plan));
            case Fails f -> throw new AssertionError("handled above");
        }
        return plan;
    }

    /** Every command of the plan as a short line, e.g. {@code put /x [0600 root -] "a\n"}. */
    /** Applies the plan {@code args} give to the fake host, then asserts that planning again plans nothing. */
    static void checkIdempotent(TaskModule module, TaskContext context, Map<String, Object> args, FakeHost host) throws Exception {
        host.apply(module.plan(module.params().validate(args), context));
        Plan again = module.plan(module.params().validate(args), context);
        assertTrue(again.isEmpty(), () -> "still planned: " + describe(again));
    }

    static List<String> describe(Plan plan) {
        List<String> lines = new ArrayList<>();
        for (Change change : plan.changes()) {
            for (Command command : change.commands()) {
                lines.add(describe(command));
            }
        }
        return lines;
    }

    static String describe(Command command) {
        return switch (command) {
            case Command.PutFile p -> "put " + p.path() + " " + attrs(p.attributes()) + " " + quoted(p.content());
            case Command.MakeDirectory d -> "mkdir " + d.path() + " " + attrs(d.attributes());
            case Command.Remove r -> "remove " + r.path();
            case Command.SetAttributes s -> "attrs " + s.path() + " " + attrs(s.attributes());
            case Command.Symlink l -> "link " + l.path() + " -> " + l.target();
            case Command.HardLink h -> "hardlink " + h.path() + " => " + h.target();
            case Command.CopyFile f -> "cp " + f.source() + " " + f.path() + " " + attrs(f.attributes());
            case Command.UploadFile u -> "upload " + u.source().getFileName() + " " + u.path() + " " + attrs(u.attributes()) + " "
                    + u.size() + " bytes";
            case Command.Exec e -> "exec " + e.argv() + (e.stdin().length == 0 ? "" : " stdin=" + quoted(e.stdin()));
            case Command.Shell s -> "shell " + quoted(s.script().getBytes(StandardCharsets.UTF_8));
            case Command.ControllerFile f -> "controller file " + f.path() + " " + quoted(f.content());
            case Command.AwaitReboot r -> "await reboot " + r.bootIdProbe() + " from " + r.bootIdBefore() + " within " + r.timeoutSeconds() + " s";
        };
    }

    private static String attrs(Command.Attributes a) {
        return "[" + a.mode().orElse("-") + " " + a.owner().orElse("-") + " " + a.group().orElse("-") + "]";
    }

    private static String quoted(byte[] content) {
        return "\"" + new String(content, StandardCharsets.UTF_8).chars()
                .mapToObj(c -> c == '\n' ? "\\n" : String.valueOf((char) c))
                .collect(Collectors.joining()) + "\"";
    }
}
