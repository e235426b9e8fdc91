package dev.provision.modules.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SetupModuleTest {
    private static final String GATHERED = String.join("\n", "hostname=node07", "kernel=6.1.0", "--- os-release", "ID=debian",
            "--- local", "exec:0 " + Base64.getEncoder().encodeToString("{\"count\": 8}".getBytes(StandardCharsets.UTF_8)) + " gpus", "");
    private final SetupModule module = new SetupModule();
    @TempDir
    Path controller;

    private Plan plan(String factPath, Map<String, Object> args) throws Exception {
        FakeHost host = new FakeHost().probe(0, GATHERED, "", "sh", "-c", HostFacts.script(factPath));
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> facts(Plan plan) {
        return (Map<String, Object>) plan.result().get(SetupModule.FACTS_RESULT);
    }

    @Test
    void gathersEveryFactAndChangesNothing() throws Exception {
        Plan plan = plan(HostFacts.FACT_PATH, Args.of());
        assertTrue(plan.isEmpty());
        assertEquals("node07", facts(plan).get("hostname"));
        assertEquals("Debian", facts(plan).get("os_family"));
        assertEquals(Map.of("gpus", Map.of("count", 8)), facts(plan).get("local"));
        assertTrue(plan.reason().startsWith("gathered "), plan.reason());
    }

    @Test
    void aFilterKeepsOnlyTheFactsItNamesWithOrWithoutTheAnsiblePrefix() throws Exception {
        Plan local = plan(HostFacts.FACT_PATH, Args.of("filter", "ansible_local"));
        assertEquals(List.of("local"), List.copyOf(facts(local).keySet()));
        assertEquals("gathered 1 fact (local)", local.reason());
        Plan globbed = plan(HostFacts.FACT_PATH, Args.of("filter", List.of("host*", "kernel")));
        assertEquals(List.of("hostname", "kernel"), List.copyOf(facts(globbed).keySet()));
    }

    @Test
    void aFilterThatMatchesNothingFailsInsteadOfGatheringNothing() {
        ModuleException e = assertThrows(ModuleException.class, () -> plan(HostFacts.FACT_PATH, Args.of("filter", "ansible_gpu*")));
        assertTrue(e.getMessage().contains("matches none of the facts"), e.getMessage());
    }

    @Test
    void readsLocalFactsFromTheGivenFactPathWhichMustBeAbsolute() throws Exception {
        assertEquals(Map.of("gpus", Map.of("count", 8)), facts(plan("/srv/facts", Args.of("fact_path", "/srv/facts"))).get("local"));
        assertThrows(ModuleException.class, () -> plan("facts", Args.of("fact_path", "facts")));
    }

    @Test
    void ansiblesSubsetAndTimeoutAreAccepted() throws Exception {
        assertEquals("node07", facts(plan(HostFacts.FACT_PATH, Args.of("gather_subset", List.of("!all", "min"), "gather_timeout", 10))).get("hostname"));
    }
}
