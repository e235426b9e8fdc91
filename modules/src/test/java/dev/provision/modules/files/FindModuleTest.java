package dev.provision.modules.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FindModuleTest {
    private static final String FORMAT = "%y\\t%s\\t%m\\t%T@\\t%u\\t%g\\t%p\\0";
    /** find /srv/eb -mindepth 1 -printf ... of a small tree. */
    private static final String TREE = String.join("\0",
            "f\t10\t644\t1700000000.5\troot\troot\t/srv/eb/GCC-12.eb",
            "f\t20\t755\t1700000000.5\troot\troot\t/srv/eb/eb",
            "f\t30\t644\t1700000000.5\troot\troot\t/srv/eb/.hidden.eb",
            "d\t4096\t755\t1700000000.5\troot\troot\t/srv/eb/sub",
            "f\t40\t600\t1700000000.5\tbob\tusers\t/srv/eb/sub/CUDA-12.eb", "");
    private final FindModule module = new FindModule();
    @TempDir
    Path controller;

    @SuppressWarnings("unchecked")
    private List<String> found(FakeHost host, Object... args) throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of(args)), new FakeContext(host, controller));
        return ((List<Map<String, Object>>) plan.result().get("files")).stream().map(f -> (String) f.get("path")).toList();
    }

    @Test
    void globsOneLevelRegexesFromTheStartAndRecursion() throws Exception {
        FakeHost oneLevel = new FakeHost().probe(0, TREE.substring(0, TREE.indexOf("f\t40")), "", "find", "/srv/eb", "-mindepth", "1", "-maxdepth", "1", "-printf", FORMAT);
        assertEquals(List.of("/srv/eb/GCC-12.eb"), found(oneLevel, "paths", "/srv/eb", "patterns", "*.eb"), "hidden files left out");
        assertEquals(List.of("/srv/eb/GCC-12.eb", "/srv/eb/.hidden.eb"), found(oneLevel, "paths", "/srv/eb", "patterns", "*.eb", "hidden", true));
        assertEquals(List.of("/srv/eb/eb"), found(oneLevel, "paths", "/srv/eb", "patterns", "^eb$", "use_regex", true));
        assertEquals(List.of("/srv/eb/sub"), found(oneLevel, "paths", "/srv/eb", "file_type", "directory"));
        FakeHost recursive = new FakeHost().probe(0, TREE, "", "find", "/srv/eb", "-mindepth", "1", "-printf", FORMAT);
        assertEquals(List.of("/srv/eb/sub/CUDA-12.eb"), found(recursive, "paths", "/srv/eb", "patterns", "*.eb", "excludes", "GCC*",
                "recurse", true));
    }

    @Test
    void whatIsNotBuiltIsRefusedBeforeAnyHostIsRead() {
        assertThrows(ParamException.class, () -> module.params().validate(Args.of("paths", "/srv", "contains", "x")));
        assertThrows(ParamException.class, () -> module.params().validate(Args.of("paths", "/srv", "age", "2d")));
    }
}
