package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code fetch} (Ansible's {@code ansible.builtin.fetch}): a file of the host copied to the controller,
 * as {@code DEST/HOSTNAME/SRC} (or {@code DEST} itself with {@code flat: yes}), written atomically;
 * unchanged when the controller's copy already has the same bytes. A missing source fails the task
 * ({@code fail_on_missing}, default yes) or, when off, leaves it {@code ok}. Meant for logs and
 * reports (the file is read whole); for data sets, see staging.
 */
public final class FetchModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("src", Type.STRING)
            .required("dest", Type.STRING)
            .withDefault("flat", Type.BOOL, false)
            .withDefault("fail_on_missing", Type.BOOL, true)
            .withDefault("validate_checksum", Type.BOOL, true)
            .build();

    public FetchModule() {
    }

    @Override
    public String name() {
        return "fetch";
    }

    @Override
    public String description() {
        return "copies a file of the host to the controller (DEST/HOST/SRC, or DEST with flat), atomically";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String src = params.string("src");
        String dest = params.string("dest");
        if (!src.startsWith("/") || Arrays.asList(src.split("/")).contains("..")) {
            throw new ModuleException("src: '" + src + "' must be an absolute path on the host, without '..'");
        }
        Path target = params.bool("flat") && !dest.endsWith("/")
                ? Path.of(dest)
                : Path.of(dest, context.host().name(), src.substring(1));
        if (params.bool("flat") && dest.endsWith("/")) {
            target = Path.of(dest, src.substring(src.lastIndexOf('/') + 1));
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("dest", target.toString());
        Optional<byte[]> content = context.host().readFile(src);
        if (content.isEmpty()) {
            if (params.bool("fail_on_missing")) {
                throw new ModuleException("the host has no file " + src);
            }
            return Plan.converged("the host has no file " + src + " (fail_on_missing is off)").withResult(result);
        }
        byte[] bytes = content.get();
        try {
            if (Files.isRegularFile(target) && Arrays.equals(Files.readAllBytes(target), bytes)) {
                return Plan.converged(target + " already holds " + src).withResult(result);
            }
        } catch (IOException e) {
            throw new ModuleException("cannot read " + target + " on the controller: " + e.getMessage());
        }
        if (Files.isDirectory(target)) {
            throw new ModuleException(target + " is a directory on the controller");
        }
        return Plan.of(new Change("fetch " + src + " to " + target + " (" + bytes.length + " bytes)", List.of(),
                List.of(new Command.ControllerFile(target.toString(), bytes)))).withResult(result);
    }
}
