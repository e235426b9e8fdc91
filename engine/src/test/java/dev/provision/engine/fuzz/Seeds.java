package dev.provision.engine.fuzz;

import java.util.List;
import java.util.Map;

/**
 * Valid inputs the fuzzer mutates: a playbook with everything a loader resolves (vars files, an
 * import, a role with defaults and handlers, blocks, loops, handlers), an inventory, expressions that
 * evaluate, and command lines that work.
 */
final class Seeds {
    private Seeds() {
    }

    /** The playbook's directory: path relative to it, then content. */
    static final Map<String, String> PLAYBOOK_FILES = Map.of(
            "site.yml", """
                    - name: web servers
                      hosts: all
                      gather_facts: false
                      vars:
                        port: 8080
                        users: [alice, bob]
                        defaults: &defaults {owner: root, mode: "0644"}
                      vars_files:
                        - vars/common.yml
                      roles:
                        - web
                        - role: web
                          tags: [again]
                          greeting: hi
                      tasks:
                        - name: say hello
                          debug:
                            msg: "port=${port}"
                          tags: [hello]
                        - name: loop over users
                          debug: {msg: "${item}"}
                          loop: "${users}"
                          when: port > 0
                        - block:
                            - command: {argv: [echo, hi]}
                              register: out
                              changed_when: false
                          rescue:
                            - fail: {msg: failed}
                          always:
                            - debug: {var: out}
                        - import_tasks: tasks/extra.yml
                        - copy:
                            <<: *defaults
                            dest: /tmp/x
                            content: "a"
                          notify: restart
                          retries: 3
                          delay: 1
                          until: out.rc == 0
                      handlers:
                        - name: restart
                          service: {name: sshd, state: restarted}
                    """,
            "vars/common.yml", """
                    common: value
                    list: [1, 2, 3]
                    map: {a: {b: c}}
                    """,
            "tasks/extra.yml", """
                    - name: extra
                      lineinfile:
                        path: /etc/hosts
                        line: "127.0.0.1 localhost"
                    - set_fact:
                        answer: 42
                    """,
            "roles/web/tasks/main.yml", """
                    - name: role task
                      template:
                        src: page.ftl
                        dest: /tmp/page
                      notify: reload web
                    """,
            "roles/web/defaults/main.yml", """
                    greeting: hello
                    """,
            "roles/web/handlers/main.yml", """
                    - name: reload web
                      debug: {msg: reloaded}
                    """,
            "roles/web/templates/page.ftl", """
                    ${greeting} from ${inventory_hostname}
                    """);

    static final Map<String, String> INVENTORY_FILES = Map.of(
            "inventory/hosts.yml", """
                    all:
                      vars:
                        ansible_user: root
                      children:
                        gpu:
                          hosts:
                            node[01:04]:
                              ansible_host: 10.0.0.1
                            node05:
                          vars:
                            gpus: 8
                        cpu:
                          hosts:
                            cpu1: {ansible_port: 2222, ansible_connection: local}
                          children:
                            gpu:
                    """,
            "inventory/group_vars/gpu.yml", """
                    cuda: "12.4"
                    """,
            "inventory/host_vars/cpu1.yml", """
                    role: login
                    """,
            "list.yml", """
                    - hosts: gpu:cpu
                      gather_facts: false
                      tasks:
                        - debug: {msg: "${gpus!0}"}
                    """);

    /** Runs on localhost with modules that only look at variables: nothing outside the process is touched. */
    static final String PROBE_PLAYBOOK = """
            - hosts: localhost
              gather_facts: false
              vars:
                n: 3
                items: [a, b]
                text: hello
                nested: {a: {b: [1, 2]}}
              tasks:
                - name: probe
                  debug:
                    msg: %s
                - set_fact:
                    fact: %s
                - assert:
                    that: %s
                  when: %s
                - debug: {msg: "${item}"}
                  loop: %s
            """;

    static final List<String> EXPRESSIONS = List.of(
            "n", "n + 1", "n * 1000000", "items", "items?join(\",\")", "items?size", "text?upper_case",
            "nested.a.b[0]", "nested.a.b", "(missing)!\"d\"", "missing!", "missing??", "n > 2 && text == \"hello\"",
            "items?filter(i -> i != \"a\")", "items?map(i -> i + \"x\")", "{\"a\": 1}", "[1, 2]", "1..3", "\"n\"?eval",
            "\"${n}\"", "r\"${x}\"", ".now?string", ".vars[\"n\"]", "text?length", "items[5]", "text[1..]", "n?string(\"0.00\")",
            "nested?keys", "text?matches(\"h.*\")", "\"a,b\"?split(\",\")", "n?c", "text?left_pad(8)");

    /** Dangerous on purpose; each must end in a clear error, quickly. */
    static final List<String> RUNAWAY = List.of(
            "<#list 1.. as i></#list>", "<#list 1..2000000000 as i>${i}</#list>", "<#macro m><@m/></#macro><@m/>",
            "<#function f x><#return f(x)></#function>${f(1)}", "<#assign s = \"x\"><#list 1..64 as i><#assign s = s + s></#list>${s?length}",
            "${.main}", "${.main?keys?join(\",\")}", "${1..}", "${1..2147483647}", "${\"\"?left_pad(2147483647)}",
            "${\"x\"?left_pad(99999999999)}", "${\"<#list 1.. as i/>\"?interpret}", "<#assign e = \"e?eval\">${e?eval}",
            "<#attempt><#list 1.. as i></#list><#recover>r</#attempt>", "${(1..100)?join(\",\")?replace(\",\", \"${text}\")}");

    static final List<String> CLI_OPTIONS = List.of("-C", "--check", "-D", "--diff", "-v", "-vvv", "--detailed-exitcodes",
            "--strict-host-keys", "--list-tasks", "--list-hosts", "--syntax-check");

    static final List<String> CLI_OPTIONS_WITH_VALUE = List.of("-f", "--forks", "--connect-timeout", "-e", "--extra-vars",
            "-l", "--limit", "-t", "--tags", "--skip-tags", "--start-at-task", "-i", "--replaced", "--json");
}
