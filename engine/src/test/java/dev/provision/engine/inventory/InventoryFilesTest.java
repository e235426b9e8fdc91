package dev.provision.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InventoryFilesTest {
    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            [gpu]\\nnode01                         | INI
            # hosts\\n; more\\n\\n[gpu:vars]\\nx=1   | INI
            node01 ansible_host=10.0.0.1          | INI
            node01                                | INI
            node[01:04]                           | INI
            node01:2222                           | INI
            fe80::1                               | INI
            [fe80::1]:2222 x=1                    | INI
            -oProxyCommand=x                      | INI
            node01 note="a: b"                    | INI
            [gpu nodes]                           | INI
            all:\\n  hosts:\\n    node01:          | YAML
            # comment\\nall:                       | YAML
            "all":                                | YAML
            gpu: {hosts: {node01: }}              | YAML
            ---\\nall:                            | YAML
            - node01                              | YAML
            {"all": {"hosts": {"n1": {}}}}        | YAML
            [node01, node02]                      | YAML
            ``                                    | YAML
            # only a comment                      | YAML
            """)
    void tellsTheFormatByTheFirstLineThatCounts(String text, InventoryFiles.Format format) {
        assertEquals(format, InventoryFiles.format(text.replace("\\n", "\n")));
    }
}
