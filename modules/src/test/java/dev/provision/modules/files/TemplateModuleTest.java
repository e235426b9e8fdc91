package dev.provision.modules.files;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.Templates;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TemplateModuleTest {
    private static final String RENDERED = "server 10.0.0.1 iburst\n";
    @TempDir
    Path controller;

    static Stream<Arguments> cases() {
        return Stream.of(
                row("new file", new FakeHost().directory("/etc"),
                        Args.of("src", "chrony.conf.ftl", "dest", "/etc/chrony.conf"),
                        planned("put /etc/chrony.conf [- - -] \"server 10.0.0.1 iburst\\n\"")),
                row("already rendered", new FakeHost().file("/etc/chrony.conf", RENDERED),
                        Args.of("src", "chrony.conf.ftl", "dest", "/etc/chrony.conf"),
                        converged("/etc/chrony.conf already has the wanted content")),
                row("content changes", new FakeHost().file("/etc/chrony.conf", "pool x\n", "0644", "root", "root"),
                        Args.of("src", "chrony.conf.ftl", "dest", "/etc/chrony.conf"),
                        planned("put /etc/chrony.conf [0644 root root] \"server 10.0.0.1 iburst\\n\"")),
                row("only attributes change", new FakeHost().file("/etc/chrony.conf", RENDERED, "0644", "root", "root"),
                        Args.of("src", "chrony.conf.ftl", "dest", "/etc/chrony.conf", "group", "chrony"),
                        planned("attrs /etc/chrony.conf [- - chrony]")),
                row("missing template", new FakeHost().directory("/etc"),
                        Args.of("src", "nope.ftl", "dest", "/etc/chrony.conf"), fails("template nope.ftl not found")),
                row("missing directory", new FakeHost(),
                        Args.of("src", "chrony.conf.ftl", "dest", "/etc/chrony/chrony.conf"),
                        fails("Destination directory /etc/chrony does not exist")),
                row("missing dest", new FakeHost(),
                        Args.of("src", "chrony.conf.ftl"), fails("missing required parameter 'dest'")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, FakeHost host, Map<String, Object> args, Expect expect) {
        Expect.check(new TemplateModule(), new FakeContext(host, controller).template("chrony.conf.ftl", RENDERED), args, expect);
    }

    @Test
    void readsTheDestinationBeforeItRenders() {
        // A plan made ahead only to learn what the task reads ends at its first read: a rendering
        // before it would be thrown away on every host.
        FakeContext fake = new FakeContext(new FakeHost().directory("/etc"), controller).template("chrony.conf.ftl", RENDERED);
        AtomicInteger renders = new AtomicInteger();
        HostView notReadYet = delegating(HostView.class, fake.host(), "stat", args -> {
            throw new ModuleException("not read yet");
        });
        Templates counting = name -> {
            renders.incrementAndGet();
            return fake.templates().render(name);
        };
        TaskContext context = delegating(TaskContext.class, fake, "host", args -> notReadYet);
        TaskContext withTemplates = delegating(TaskContext.class, context, "templates", args -> counting);

        TemplateModule module = new TemplateModule();
        ModuleException ended = assertThrows(ModuleException.class,
                () -> module.plan(module.params().validate(Args.of("src", "chrony.conf.ftl", "dest", "/etc/chrony.conf")), withTemplates));

        assertEquals("not read yet", ended.getMessage());
        assertEquals(0, renders.get(), "rendered before the first read");
    }

    /** What one method of {@code type} answers, the rest passed on to {@code to}. */
    private interface Answer {
        Object answer(Object[] args) throws Exception;
    }

    private static <T> T delegating(Class<T> type, T to, String method, Answer answer) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
            if (m.getName().equals(method)) {
                return answer.answer(args);
            }
            try {
                return m.invoke(to, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }
}
