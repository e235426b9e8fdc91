package dev.provision.engine.playbook;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.source.InvalidInputException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One malformed file per case under {@code src/test/resources/malformed/}: the error must name the
 * exact file, line and column, say what is wrong in one line.
 */
class MalformedPlaybookTest {

    private static Path malformed(String relative) throws URISyntaxException {
        return Path.of(MalformedPlaybookTest.class.getResource("/malformed/" + relative).toURI());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bad-yaml.yml              | bad-yaml.yml:4:13              | invalid YAML: mapping values are not allowed here
            unclosed-quote.yml        | unclosed-quote.yml:5:1         | invalid YAML: found unexpected end of stream
            empty.yml                 | empty.yml:1:1                  | playbook is empty
            top-level-mapping.yml     | top-level-mapping.yml:1:1      | a playbook must be a list of plays, not a mapping; start each play with '- '
            play-not-mapping.yml      | play-not-mapping.yml:3:3       | a play must be a mapping
            unknown-play-keyword.yml  | unknown-play-keyword.yml:2:3   | unknown keyword 'taks' in a play (did you mean 'tasks'?)
            module-at-play-level.yml  | module-at-play-level.yml:2:3   | 'copy' is a task, not a play keyword
            not-supported.yml         | not-supported.yml:2:3          | 'remote_user' is not supported yet; set ansible_user in the inventory
            missing-hosts.yml         | missing-hosts.yml:1:3          | play 'no hosts here' has no 'hosts'
            become-maybe.yml          | become-maybe.yml:2:11          | 'become' must be true or false, not a string ('maybe')
            task-not-mapping.yml      | task-not-mapping.yml:3:7       | a task must be a mapping
            unknown-module.yml        | unknown-module.yml:4:7         | unknown module or keyword 'coppy' (did you mean 'copy'?)
            two-modules.yml           | two-modules.yml:5:7            | two modules in one task ('copy' at line 4 and 'file')
            no-module.yml             | no-module.yml:3:7              | task 'does nothing' names no module
            when-mapping.yml          | when-mapping.yml:4:13          | 'when' must be a condition
            retries-lots.yml          | retries-lots.yml:5:16          | 'retries' must be a whole number, not a string ('lots')
            duplicate-key.yml         | duplicate-key.yml:5:7          | duplicate key 'name' (first written at line 3)
            listen-on-task.yml        | listen-on-task.yml:4:7         | 'listen' is only for handlers
            unknown-param.yml         | unknown-param.yml:5:9          | unknown parameter 'dst' for module 'copy' (did you mean 'dest'?)
            free-form-not-allowed.yml | free-form-not-allowed.yml:3:13 | module 'copy' takes no free-form string
            missing-include.yml       | missing-include.yml:3:21       | task file 'nope.yml' not found; looked in
            missing-role.yml          | missing-role.yml:4:7           | role 'nope' not found; looked in
            missing-vars-file.yml     | missing-vars-file.yml:3:7      | vars file 'nope.yml' not found; looked in
            dynamic-include.yml       | dynamic-include.yml:3:21       | so it needs a fixed name
            include-loop.yml          | include-loop.yml:4:7           | dynamic includes are not supported
            include-cycle.yml         | cycle-b.yml:3:11               | include cycle: cycle-a.yml -> cycle-b.yml -> cycle-a.yml
            error-in-included-file.yml| tasks/broken.yml:5:3           | unknown module or keyword 'registr' (did you mean 'register'?)
            billion-laughs.yml        | billion-laughs.yml:12:11       | aliases here expand to more than 1000000 values (a 'billion laughs'?)
            recursive-merge.yml       | recursive-merge.yml:4:5        | '<<' merges a mapping into itself (a recursive merge)
            recursive-alias.yml       | recursive-alias.yml:3:14       | this alias refers to a value that contains it (a recursive alias)
            too-deep.yml              | too-deep.yml:3:72              | invalid YAML: nested more than 64 levels deep
            alias-chain-too-deep.yml  | alias-chain-too-deep.yml:64:10 | value nests more than 64 levels deep (through aliases?)
            invalid-utf8.yml          | invalid-utf8.yml:3:24          | playbook file is not valid UTF-8: byte 0xe9 at byte offset 45
            role-escapes.yml          | role-escapes.yml:4:7           | role '../playbook/roles/common' is not allowed
            first-found-key.yml       | first-found-key.yml:6:11       | unknown key 'path' in 'with_first_found' (did you mean 'paths'?)
            local-action-no-module.yml| local-action-no-module.yml:4:9 | 'local_action' names no module
            local-action-delegate.yml | local-action-delegate.yml:3:7  | 'local_action' runs the task on the controller; it cannot also have 'delegate_to'
            with-dict-list.yml        | with-dict-list.yml:4:18        | 'with_dict' must be a mapping or an expression that gives one, not a list
            nul-in-file-name.yml      | nul-in-file-name.yml:3:21      | 'tasks/a\\u0000b.yml' is not a valid file name
            """)
    void reportsPlaybookMistakeAtItsPosition(String file, String position, String phrase) throws Exception {
        Path playbook = malformed("playbook/" + file);
        InvalidInputException error = assertThrows(InvalidInputException.class,
                () -> PlaybookLoader.load(playbook, new FakeCatalog()));
        assertReported(error, playbook.getParent().resolve(position.substring(0, position.indexOf(':'))),
                position.substring(position.indexOf(':')), phrase);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bad-yaml.yml         | 5:1   | invalid YAML
            not-mapping.yml      | 1:1   | an inventory must be a mapping of groups
            hosts-list.yml       | 5:9   | 'hosts' of group 'gpu' must be a mapping of host names, not a list
            bad-range.yml        | 5:9   | bad host range 'node[5:1]': start 5 is after end 1
            mixed-range.yml      | 3:5   | bad host range 'node[a:5]'
            host-and-group.yml   | 8:9   | 'gpu' is both a host and a group
            unknown-key.yml      | 4:7   | unknown key 'host' in group 'gpu' (did you mean 'hosts'?); a group holds only hosts, vars and children
            host-vars-scalar.yml | 3:12  | the vars of host 'node1' must be a mapping
            group-cycle.yml      | 3:5   | group 'a' is its own child (a -> b -> a)
            duplicate-host.yml   | 5:5   | duplicate key 'node1'
            option-host.yml      | 3:5   | host name '-oProxyCommand=x' starts with '-', which ssh would read as an option
            semicolon-host.yml   | 3:5   | host name 'h;touch x' holds ';'
            empty-host.yml       | 3:5   | a host name cannot be empty
            null-host.yml        | 4:5   | a host name cannot be null
            space-host.yml       | 3:5   | host name 'node 1' holds whitespace
            bad-ansible-host.yml | 4:21  | ansible_host '$(reboot)' holds '$'
            alias-without-address.yml | 5:9 | host 'gpu@rack1' is neither a DNS name nor an IP address, so it is an alias, and no ansible_host
            unknown-section.ini  | 3:6   | unknown section kind ':hostvars' in [gpu:hostvars]; a section is [group], [group:vars] or [group:children]
            bad-header.ini       | 1:1   | malformed section header '[gpu nodes]'
            children-host.ini    | 5:1   | [cluster:children] lists 'node01', but 'node01' is a host, not a group; hosts go under [cluster]
            children-undefined.ini | 3:3 | [cluster:children] lists 'storage', but no [storage] or [storage:children] section declares group 'storage'
            ungrouped-child.ini  | 6:1   | 'ungrouped' cannot be a child of 'cluster': it holds the hosts of no other group
            vars-undefined.ini   | 2:1   | [gpu:vars] sets variables of group 'gpu', which no [gpu] or [gpu:children] section declares
            bad-host-var.ini     | 2:30  | expected key=value after host 'node01', got 'gpus'
            vars-no-equals.ini   | 4:1   | expected key=value in [gpu:vars], got 'cuda 12.4'
            unterminated-quote.ini | 2:13 | the quote " opened here is never closed
            complex-value.ini    | 2:14  | '1j' is a Python complex number, which an inventory variable cannot hold
            option-host.ini      | 2:1   | host name '-oProxyCommand=x' starts with '-'
            semicolon-host.ini   | 2:1   | host name 'h;touch x' holds ';'
            bad-ansible-host.ini | 2:21  | ansible_host '10.0.0.1;reboot' holds ';'
            bad-user.ini         | 4:16  | ansible_user '-oProxyCommand=x' starts with '-'
            """)
    void reportsInventoryMistakeAtItsPosition(String file, String position, String phrase) throws Exception {
        Path inventory = malformed("inventory/" + file);
        InvalidInputException error = assertThrows(InvalidInputException.class,
                () -> Inventory.load(List.of(inventory.toString()), inventory.getParent()));
        assertReported(error, inventory, ":" + position, phrase);
    }

    private static void assertReported(InvalidInputException error, Path file, String lineColumn, String phrase) {
        String message = error.getMessage();
        String prefix = file + lineColumn + ": ";
        assertTrue(message.startsWith(prefix), () -> "expected prefix " + prefix + " in: " + message);
        assertTrue(message.contains(phrase), () -> "expected '" + phrase + "' in: " + message);
        assertTrue(!message.contains("\n") && !message.contains("\r"), () -> "not one line: " + message);
    }
}
