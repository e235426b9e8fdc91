package dev.provision.engine.template;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.engine.source.SourcePosition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TemplateEngineConcurrencyTest {
    @TempDir
    Path workspace;

    @Test
    void rendersTheSameTemplateForManyHostsInParallel() throws Exception {
        Files.writeString(workspace.resolve("hosts.ftl"),
                "<#list peers as p>${p} </#list>self=${name} port=${port}\n");
        TemplateEngine engine = new TemplateEngine(List.of(workspace));
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> rendered = new ArrayList<>();
            for (int host = 0; host < 200; host++) {
                Map<String, Object> vars = Map.of("name", "node" + host, "port", 20000 + host,
                        "peers", List.of("node" + (host + 1), "node" + (host + 2)));
                rendered.add(threads.submit(() -> engine.render("hosts.ftl", List.of(), vars)));
            }
            List<Future<Object>> interpolated = new ArrayList<>();
            for (int host = 0; host < 200; host++) {
                Map<String, Object> vars = Map.of("name", "node" + host);
                interpolated.add(threads.submit(() -> engine.interpolate("host ${name}", vars, SourcePosition.UNKNOWN)));
            }

            for (int host = 0; host < 200; host++) {
                assertEquals("node" + (host + 1) + " node" + (host + 2) + " self=node" + host
                        + " port=" + (20000 + host) + "\n", rendered.get(host).get());
                assertEquals("host node" + host, interpolated.get(host).get());
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
