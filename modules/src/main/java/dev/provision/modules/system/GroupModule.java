package dev.provision.modules.system;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code group}: whether a group exists, and its gid.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code name}, required: a group name as shadow-utils accepts it ({@link Accounts#requireName}).
 *   <li>{@code gid}: the group id; an existing group with another gid gets this one
 *       ({@code groupmod -g}). A gid that another group holds is refused unless {@code non_unique}.
 *   <li>{@code state}: {@code present} (default) or {@code absent}.
 *   <li>{@code system} (default false): a new group gets a gid from the system range
 *       ({@code groupadd -r}); an existing group is left as it is, as in Ansible.
 *   <li>{@code non_unique} (default false): allow a gid that another group has ({@code -o}).
 *   <li>{@code force} (default false): with {@code absent}, remove the group even when it is a
 *       user's primary group ({@code groupdel -f}).
 * </ul>
 *
 * <p>Reads the host with {@code getent group NAME} (and {@code getent group GID} before giving a
 * gid); plans {@code groupadd}, {@code groupmod} or {@code groupdel}, each an argument vector.
 */
public final class GroupModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("name", Type.STRING)
            .optional("gid", Type.INT)
            .choice("state", "present", "present", "absent")
            .withDefault("system", Type.BOOL, false)
            .withDefault("non_unique", Type.BOOL, false)
            .withDefault("force", Type.BOOL, false)
            .build();

    public GroupModule() {
    }

    @Override
    public String name() {
        return "group";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String name = Accounts.requireName("name", params.string("name"));
        OptionalLong gid = params.optInteger("gid").isPresent()
                ? OptionalLong.of(Accounts.requireId("gid", params.integer("gid"))) : OptionalLong.empty();
        HostView host = context.host();
        Optional<Accounts.Group> current = Accounts.group(host, name);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("name", name);
        result.put("state", params.string("state"));
        if (params.string("state").equals("absent")) {
            if (current.isEmpty()) {
                return Plan.converged("group " + name + " does not exist").withResult(result);
            }
            List<String> argv = new ArrayList<>(List.of("groupdel"));
            if (params.bool("force")) {
                argv.add("-f");
            }
            argv.add(name);
            Change remove = new Change("remove group " + name, List.of(new Diff("group " + name, describe(current.get()), "")),
                    List.of(new Command.Exec(argv, new byte[0])));
            return Plan.of(remove).withResult(result).withProbeAfterwards(Accounts.groupProbe(name), Accounts.notFound());
        }
        result.put("system", params.bool("system"));
        if (current.isEmpty()) {
            gid.ifPresent(g -> result.put("gid", g));
            if (gid.isPresent()) {
                requireFree(host, name, gid.getAsLong(), params.bool("non_unique"));
            }
            List<String> argv = new ArrayList<>(List.of("groupadd"));
            gid.ifPresent(g -> argv.addAll(List.of("-g", Long.toString(g))));
            if (gid.isPresent() && params.bool("non_unique")) {
                argv.add("-o");
            }
            if (params.bool("system")) {
                argv.add("-r");
            }
            argv.add(name);
            Accounts.Group made = new Accounts.Group(name, gid, List.of());
            String summary = "create " + (params.bool("system") ? "system " : "") + "group " + name
                    + (gid.isPresent() ? " (gid " + gid.getAsLong() + ")" : "");
            Change create = new Change(summary, List.of(new Diff("group " + name, "", describe(made))),
                    List.of(new Command.Exec(argv, new byte[0])));
            return Plan.of(create).withResult(result).withProbeAfterwards(Accounts.groupProbe(name), answer(made));
        }
        Accounts.Group group = current.get();
        group.gid().ifPresent(g -> result.put("gid", g));
        if (gid.isEmpty() || group.gid().equals(gid)) {
            return Plan.converged("group " + name + " exists" + group.gid().stream().mapToObj(g -> " (gid " + g + ")").findFirst().orElse(""))
                    .withResult(result);
        }
        requireFree(host, name, gid.getAsLong(), params.bool("non_unique"));
        List<String> argv = new ArrayList<>(List.of("groupmod", "-g", Long.toString(gid.getAsLong())));
        if (params.bool("non_unique")) {
            argv.add("-o");
        }
        argv.add(name);
        Accounts.Group changed = new Accounts.Group(name, gid, group.members());
        result.put("gid", gid.getAsLong());
        Change modify = new Change("change group " + name + ": gid: " + text(group.gid()) + " -> " + gid.getAsLong(),
                List.of(new Diff("group " + name, describe(group), describe(changed))), List.of(new Command.Exec(argv, new byte[0])));
        return Plan.of(modify).withResult(result).withProbeAfterwards(Accounts.groupProbe(name), answer(changed));
    }

    /** groupadd/groupmod refuse a gid in use only after the dry run said all was well: ask first. */
    private static void requireFree(HostView host, String name, long gid, boolean nonUnique) throws ModuleException {
        if (nonUnique) {
            return;
        }
        Optional<Accounts.Group> holder = Accounts.group(host, Long.toString(gid));
        if (holder.isPresent() && !holder.get().name().equals(name)) {
            throw new ModuleException("gid " + gid + " belongs to group " + holder.get().name()
                    + "; choose another gid, or set non_unique: true to share it");
        }
    }

    private static ProbeResult answer(Accounts.Group group) {
        return new ProbeResult(0, group.line(), "");
    }

    private static String describe(Accounts.Group group) {
        return "gid: " + (group.gid().isPresent() ? Long.toString(group.gid().getAsLong()) : "(allocated by groupadd)") + "\n";
    }

    private static String text(OptionalLong id) {
        return id.isPresent() ? Long.toString(id.getAsLong()) : "(allocated)";
    }
}
