package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Malformed playbooks, inventories and variables through the real launcher: exit 4 (or 2 for a
 * mistake found while a task runs), exactly one {@code ERROR: file:line:column: ...} line, no stack
 * trace.
 */
class MalformedCliIT {
    static final Path MALFORMED = Provision.REPO.resolve("engine/src/test/resources/malformed");
    static final Path RUNTIME = Provision.REPO.resolve("engine/src/test/resources/e2e/runtime");
    static final String VALID = Provision.REPO.resolve("engine/src/test/resources/e2e/control/quiet.yml").toString();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bad-yaml.yml              | bad-yaml.yml:4:13              | invalid YAML: mapping values are not allowed here
            unclosed-quote.yml        | unclosed-quote.yml:5:1         | invalid YAML: found unexpected end of stream
            empty.yml                 | empty.yml:1:1                  | playbook is empty
            top-level-mapping.yml     | top-level-mapping.yml:1:1      | a playbook must be a list of plays
            play-not-mapping.yml      | play-not-mapping.yml:3:3       | a play must be a mapping
            unknown-play-keyword.yml  | unknown-play-keyword.yml:2:3   | unknown keyword 'taks' in a play (did you mean 'tasks'?)
            module-at-play-level.yml  | module-at-play-level.yml:2:3   | 'copy' is a task, not a play keyword
            not-supported.yml         | not-supported.yml:2:3          | 'remote_user' is not supported yet
            missing-hosts.yml         | missing-hosts.yml:1:3          | play 'no hosts here' has no 'hosts'
            become-maybe.yml          | become-maybe.yml:2:11          | 'become' must be true or false
            task-not-mapping.yml      | task-not-mapping.yml:3:7       | a task must be a mapping
            unknown-module.yml        | unknown-module.yml:4:7         | unknown module or keyword 'coppy' (did you mean 'copy'?)
            two-modules.yml           | two-modules.yml:5:7            | two modules in one task
            no-module.yml             | no-module.yml:3:7              | task 'does nothing' names no module
            when-mapping.yml          | when-mapping.yml:4:13          | 'when' must be a condition
            retries-lots.yml          | retries-lots.yml:5:16          | 'retries' must be a whole number
            duplicate-key.yml         | duplicate-key.yml:5:7          | duplicate key 'name' (first written at line 3)
            listen-on-task.yml        | listen-on-task.yml:4:7         | 'listen' is only for handlers
            unknown-param.yml         | unknown-param.yml:5:9          | unknown parameter 'dst' for module 'copy' (did you mean 'dest'?)
            free-form-not-allowed.yml | free-form-not-allowed.yml:3:13 | module 'copy' takes no free-form string
            missing-include.yml       | missing-include.yml:3:21       | task file 'nope.yml' not found
            missing-role.yml          | missing-role.yml:4:7           | role 'nope' not found
            missing-vars-file.yml     | missing-vars-file.yml:3:7      | vars file 'nope.yml' not found
            dynamic-include.yml       | dynamic-include.yml:3:21       | so it needs a fixed name
            include-loop.yml          | include-loop.yml:4:7           | dynamic includes are not supported
            include-cycle.yml         | cycle-b.yml:3:11               | include cycle: cycle-a.yml -> cycle-b.yml -> cycle-a.yml
            error-in-included-file.yml| tasks/broken.yml:5:3           | unknown module or keyword 'registr' (did you mean 'register'?)
            """)
    void malformedPlaybookGivesOneLineWithItsPosition(String file, String position, String phrase) throws Exception {
        Path playbook = MALFORMED.resolve("playbook").resolve(file);
        Provision.Result r = Provision.run(playbook.toString());
        assertOneErrorLine(r, 4, MALFORMED.resolve("playbook") + "/" + position + ": ", phrase);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bad-yaml.yml         | 5:1   | invalid YAML
            not-mapping.yml      | 1:1   | an inventory must be a mapping of groups
            hosts-list.yml       | 5:9   | 'hosts' of group 'gpu' must be a mapping of host names, not a list
            bad-range.yml        | 5:9   | bad host range 'node[5:1]': start 5 is after end 1
            mixed-range.yml      | 3:5   | bad host range 'node[a:5]'
            host-and-group.yml   | 8:9   | 'gpu' is both a host and a group
            unknown-key.yml      | 4:7   | unknown key 'host' in group 'gpu' (did you mean 'hosts'?)
            host-vars-scalar.yml | 3:12  | the vars of host 'node1' must be a mapping
            group-cycle.yml      | 3:5   | group 'a' is its own child (a -> b -> a)
            duplicate-host.yml   | 5:5   | duplicate key 'node1'
            """)
    void malformedInventoryGivesOneLineWithItsPosition(String file, String position, String phrase) throws Exception {
        Path inventory = MALFORMED.resolve("inventory").resolve(file);
        Provision.Result r = Provision.run("-i", inventory.toString(), VALID);
        assertOneErrorLine(r, 4, inventory + ":" + position + ": ", phrase);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            notify-nobody.yml      | 4 | notify-nobody.yml:4:7: | notify names no handler 'restart sshd' (did you mean 'restart ssh'?)
            bad-extra-vars.yml     | 4 | bad-extra-vars.yml:2:1: | malformed extra vars
            undefined-in-when.yml  | 2 | undefined-in-when.yml:7:13: | undefined variable 'gpu_count'
            bad-param-type.yml     | 2 | bad-param-type.yml:9:9:  | parameter 'mode' must be a string
            """)
    void mistakeFoundAtRunTimeNamesItsPosition(String file, int exitCode, String position, String phrase) throws Exception {
        Path path = RUNTIME.resolve(file);
        Provision.Result r = file.equals("bad-extra-vars.yml")
                ? Provision.run("-e", "@" + path, VALID)
                : Provision.run(path.toString());
        String expected = RUNTIME + "/" + position + " ";
        if (exitCode == 4) {
            assertOneErrorLine(r, 4, expected, phrase);
        } else {
            assertEquals(exitCode, r.exitCode(), r.output());
            List<String> failed = r.output().lines().filter(l -> l.startsWith("failed: [localhost] => ")).toList();
            assertEquals(1, failed.size(), r.output());
            assertTrue(failed.get(0).startsWith("failed: [localhost] => " + expected), r.output());
            assertTrue(failed.get(0).contains(phrase), r.output());
            ExecutorIT.assertNoStackTrace(r.output());
        }
    }

    static void assertOneErrorLine(Provision.Result r, int exitCode, String prefix, String phrase) {
        assertEquals(exitCode, r.exitCode(), r.output());
        List<String> lines = r.output().strip().lines().toList();
        assertEquals(1, lines.size(), "exactly one line:\n" + r.output());
        assertTrue(lines.get(0).startsWith("ERROR: " + prefix), "expected 'ERROR: " + prefix + "...':\n" + r.output());
        assertTrue(lines.get(0).contains(phrase), r.output());
        ExecutorIT.assertNoStackTrace(r.output());
    }

    /** A secret from the environment that sudo could not read as one line: one error, never the value. */
    @org.junit.jupiter.api.Test
    void aBecomePasswordWithALineBreakIsAUsageErrorThatNeverShowsIt() throws Exception {
        Provision.Result r = Provision.run(java.util.Map.of("PROVISION_BECOME_PASSWORD", "s3cret\nrm -rf /"), "-i", "localhost,", VALID);
        org.junit.jupiter.api.Assertions.assertEquals(5, r.exitCode(), r.output());
        org.junit.jupiter.api.Assertions.assertEquals(
                "ERROR: PROVISION_BECOME_PASSWORD holds a line break; sudo reads the password as one line", r.output().strip());
    }
}
