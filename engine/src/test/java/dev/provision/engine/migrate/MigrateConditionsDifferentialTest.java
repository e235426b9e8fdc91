package dev.provision.engine.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provision.engine.cli.ProvisionCommand;
import dev.provision.engine.e2e.Launched;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The truth value of every Jinja2 condition shape in {@code migrate/conditions/site.yml} (filters,
 * is tests, in, list-form when, == True, and/or) as the real {@code ansible-playbook} computes it and
 * as provision computes the {@code provision migrate --write} translation, on the same variables:
 * the same tasks must run. Skipped where ansible-playbook is not installed.
 */
class MigrateConditionsDifferentialTest {
    private static final Path FIXTURE = Path.of("src/test/resources/migrate/conditions/site.yml");
    private static final Pattern ANSIBLE_RAN = Pattern.compile("\"msg\": \"(c\\d\\d)\"");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "{}",
        "{\"ver\": \"535.104.05\", \"docker_install\": true, \"flag\": \"yes\", \"nfs_mounts\": [\"a\", \"b\"], \"mode\": \"gpu\", \"roles_list\": [\"gpu\", \"cpu\"]}",
        "{\"ver\": \"550\", \"docker_install\": false, \"flag\": \"no\", \"nfs_mounts\": [], \"mode\": \"cpu\", \"roles_list\": []}",
        "{\"ver\": \"1.10\", \"docker_install\": \"no\", \"flag\": true, \"nfs_mounts\": [\"a\"], \"mode\": \"gp\", \"roles_list\": [\"cpu\"]}",
        "{\"ver\": \"1.9rc1\", \"docker_install\": 0, \"flag\": \"True\", \"mode\": \"\", \"roles_list\": [\"gpu\"]}",
        "{\"ver\": \"12.2.0\", \"docker_install\": 1, \"flag\": \"off\", \"mode\": \"gpu-a\"}",
    })
    void theMigratedConditionsRunTheTasksAnsibleRuns(String vars) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/ansible-playbook")), "ansible-playbook is not installed (Debian: ansible-core)");
        Path varsFile = Files.writeString(tmp.resolve("vars.json"), vars);
        Path original = Files.copy(FIXTURE, tmp.resolve("original.yml"));
        Path migrated = Files.copy(FIXTURE, tmp.resolve("migrated.yml"));
        assertEquals(0, provision("migrate", "--write", migrated.toString()), out.toString(StandardCharsets.UTF_8));
        assertEquals(ansible(original, varsFile), ours(migrated, varsFile), "tasks run (true) and skipped (false) with " + vars
                + "\nmigrated:\n" + Files.readString(migrated));
    }

    private Map<String, Boolean> ansible(Path playbook, Path vars) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("ansible-playbook", "-i", "localhost,", "-c", "local", "-e", "@" + vars, playbook.toString())
                .redirectErrorStream(true);
        pb.environment().put("HOME", tmp.toString());
        pb.environment().put("ANSIBLE_LOCAL_TEMP", tmp.resolve("ansible-tmp").toString());
        pb.environment().put("ANSIBLE_NOCOLOR", "1");
        Launched.Output run = Launched.run(pb, Duration.ofMinutes(3));
        assertEquals(0, run.exitCode(), run.stdout());
        TreeSet<String> ran = new TreeSet<>();
        Matcher m = ANSIBLE_RAN.matcher(run.stdout());
        while (m.find()) {
            ran.add(m.group(1));
        }
        Map<String, Boolean> result = new TreeMap<>();
        for (int k = 1; k <= 30; k++) {
            String task = String.format("c%02d", k);
            result.put(task, ran.contains(task));
        }
        return result;
    }

    private Map<String, Boolean> ours(Path playbook, Path vars) throws Exception {
        Path json = tmp.resolve("report.json");
        int code = provision("-i", "localhost,", "-e", "@" + vars, "--json", json.toString(), playbook.toString());
        assertEquals(0, code, out.toString(StandardCharsets.UTF_8));
        Map<String, Boolean> result = new TreeMap<>();
        for (JsonNode play : JSON.readTree(json.toFile()).path("plays")) {
            for (JsonNode task : play.path("tasks")) {
                String name = task.path("name").asText().substring(0, 3);
                for (JsonNode r : task.path("results")) {
                    result.put(name, !r.path("status").asText().equals("skipped"));
                }
            }
        }
        return result;
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private int provision(String... args) {
        out.reset();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        return ProvisionCommand.execute(args, print, print);
    }
}
