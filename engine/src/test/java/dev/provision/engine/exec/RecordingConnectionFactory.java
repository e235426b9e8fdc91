package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionFactory;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.modules.spi.Command;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A factory of fake connections that record every request and answer each with exit 0 and
 * {@code "ok"} (writes and programs sent in one exchange: each step done); what each host was
 * opened with is kept too. Thread-safe.
 */
final class RecordingConnectionFactory implements ConnectionFactory {
    /** One request as the host received it. */
    record Call(String host, String commandLine, byte[] stdin) {
        String stdinText() {
            return new String(stdin, StandardCharsets.UTF_8);
        }
    }

    /** How a host answers a command; by default exit 0 and {@code "ok"}. */
    interface Responder {
        ExecResult answer(String host, String commandLine);
    }

    final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    volatile Responder responder = (host, commandLine) -> new ExecResult(0, "ok\n".getBytes(StandardCharsets.UTF_8), new byte[0]);
    final Map<String, Map<String, Object>> opened = Collections.synchronizedMap(new LinkedHashMap<>());

    @Override
    public Connection open(String hostName, Map<String, Object> hostVars) {
        opened.put(hostName, Map.copyOf(hostVars));
        return new Connection() {
            @Override
            public String hostName() {
                return hostName;
            }

            @Override
            public ExecResult exec(ExecRequest request) {
                calls.add(new Call(hostName, request.commandLine(), request.stdin()));
                Optional<ExecResult> steps = stepsDone(request.commandLine());
                return steps.isPresent() ? steps.get() : responder.answer(hostName, request.commandLine());
            }

            @Override
            public void put(String path, byte[] content, Command.Attributes attributes) {
                calls.add(new Call(hostName, "put " + path, content));
            }

            @Override
            public Optional<byte[]> read(String path) {
                return Optional.empty();
            }

            @Override
            public void close() {
            }
        };
    }

    private static final java.util.regex.Pattern STEP_TOKEN = java.util.regex.Pattern.compile("^tok='?(PROVISION-STEP-[A-Za-z0-9_-]+)'?$",
            java.util.regex.Pattern.MULTILINE);
    private static final java.util.regex.Pattern STEP_MARK = java.util.regex.Pattern.compile("\\bmark (0$|\"\\$rc\")",
            java.util.regex.Pattern.MULTILINE);

    /**
     * Writes and programs in one exchange ({@code Connection.inOneExchange}) answered as done, each
     * step's mark on both outputs; empty for any other command.
     */
    private static Optional<ExecResult> stepsDone(String commandLine) {
        java.util.regex.Matcher token = STEP_TOKEN.matcher(commandLine);
        if (!token.find()) {
            return Optional.empty();
        }
        String marks = (token.group(1) + " 0\n").repeat((int) STEP_MARK.matcher(commandLine).results().count());
        return Optional.of(new ExecResult(0, marks.getBytes(StandardCharsets.UTF_8), marks.getBytes(StandardCharsets.UTF_8)));
    }

    /** The command lines {@code host} received, in order. */
    List<String> commandLines(String host) {
        synchronized (calls) {
            return calls.stream().filter(c -> c.host().equals(host)).map(Call::commandLine).toList();
        }
    }
}
