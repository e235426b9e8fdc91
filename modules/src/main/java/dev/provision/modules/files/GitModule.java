package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.text.ShellWords;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code git} (Ansible's {@code ansible.builtin.git}): a checkout of {@code repo} at {@code version}
 * (a branch, a tag or a commit; the remote's HEAD by default) in {@code dest}, on the host. The
 * commit wanted is read before anything changes ({@code git ls-remote}, read-only), so a dry run
 * says exactly whether the checkout moves. A new clone is made beside {@code dest} and renamed into
 * place: never a half-cloned {@code dest}. Local modifications fail the task unless {@code force}.
 *
 * <p>Parameters: {@code repo}, {@code dest} (required); {@code version}, {@code clone} (yes),
 * {@code update} (yes), {@code force} (no), {@code depth}, {@code recursive} (yes: submodules),
 * {@code remote} (origin). {@code accept_hostkey} is refused: host keys are verified here, add the
 * Git server's key with {@code known_hosts} (or {@code ssh_known_hosts}) first.
 */
public final class GitModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("repo", Type.STRING, "name")
            .required("dest", Type.STRING)
            .withDefault("version", Type.STRING, "HEAD")
            .withDefault("clone", Type.BOOL, true)
            .withDefault("update", Type.BOOL, true)
            .withDefault("force", Type.BOOL, false)
            .withDefault("recursive", Type.BOOL, true)
            .withDefault("remote", Type.STRING, "origin")
            .optional("depth", Type.INT)
            .optional("single_branch", Type.BOOL)
            .refused("accept_hostkey", "host keys are verified, never accepted blindly: add the Git server's key to "
                    + "known_hosts first (module ssh_known_hosts), then remove accept_hostkey")
            .refused("accept_newhostkey", "host keys are verified, never accepted blindly: add the Git server's key to "
                    + "known_hosts first (module ssh_known_hosts), then remove accept_newhostkey")
            .build();
    private static final String SHA = "[0-9a-f]{40}";

    public GitModule() {
    }

    @Override
    public String name() {
        return "git";
    }

    @Override
    public String description() {
        return "a Git checkout at a branch, tag or commit; the commit wanted is read first, a new clone is renamed into place";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String repo = params.string("repo");
        String dest = params.string("dest");
        String version = params.string("version");
        String remote = params.string("remote");
        if (!dest.startsWith("/")) {
            throw new ModuleException("dest: '" + dest + "' must be an absolute path on the host");
        }
        if (repo.startsWith("-") || version.startsWith("-") || remote.startsWith("-")) {
            throw new ModuleException("repo, version and remote cannot start with '-' (git would read them as options)");
        }
        String shown = redacted(repo);
        Optional<FileStat> destStat = context.host().stat(dest);
        boolean isRepo = context.host().stat(dest + "/.git").isPresent();
        if (destStat.isPresent() && !isRepo) {
            if (destStat.get().type() != FileStat.Type.DIRECTORY || !context.host().walk(dest).isEmpty()) {
                throw new ModuleException("dest: " + dest + " exists and is not a Git checkout (nor an empty directory)");
            }
        }
        if (!isRepo && !params.bool("clone")) {
            return Plan.converged(dest + " is not a checkout and clone is off");
        }
        Map<String, Object> result = new LinkedHashMap<>();
        if (isRepo && !params.bool("update")) {
            String before = head(context, dest);
            result.put("before", before);
            result.put("after", before);
            return Plan.converged(dest + " is at " + before + " (update is off)").withResult(result);
        }
        Target target = target(context, repo, version);
        result.put("after", target.commit());
        if (!isRepo) {
            result.put("before", "");
            return new Plan(List.of(hidingCredentials(clone(params, dest, repo, target), repo)), "", Map.of(), result);
        }
        String before = head(context, dest);
        result.put("before", before);
        String url = context.host().probe("git", "-C", dest, "config", "--get", "remote." + remote + ".url").stdout().strip();
        boolean moved = !before.equals(target.commit());
        boolean urlChanged = !url.equals(repo);
        result.put("remote_url_changed", urlChanged);
        if (!moved && !urlChanged) {
            return Plan.converged(dest + " is at " + before + " (" + version + ")").withResult(result);
        }
        if (moved) {
            ProbeResult status = context.host().probe("git", "-C", dest, "status", "--porcelain", "--untracked-files=no");
            if (!status.stdout().isBlank() && !params.bool("force")) {
                throw new ModuleException(dest + " has local modifications (" + status.stdout().strip().lines().count()
                        + " files); set force: yes to discard them");
            }
        }
        List<Command> commands = new ArrayList<>();
        if (urlChanged) {
            commands.add(Command.Exec.of("git", "-C", dest, "remote", "set-url", remote, repo));
        }
        if (moved) {
            commands.add(Command.Exec.of(fetch(params, dest, remote, target).toArray(String[]::new)));
            commands.add(Command.Exec.of(checkout(params, dest, target).toArray(String[]::new)));
            if (params.bool("recursive")) {
                commands.add(Command.Exec.of("git", "-C", dest, "submodule", "update", "--init", "--recursive", "-q"));
            }
        }
        String summary = moved ? "move " + dest + " from " + before + " to " + target.commit() + " (" + version + ")"
                : "point " + dest + "'s " + remote + " at " + shown;
        return new Plan(List.of(hidingCredentials(new Change(summary, List.of(), commands), repo)), "", Map.of(), result);
    }

    /** The commit {@code version} names on the remote, and whether it is a branch. */
    record Target(String commit, String version, boolean branch) {
    }

    static Target target(TaskContext context, String repo, String version) throws ModuleException {
        if (version.matches(SHA)) {
            return new Target(version, version, false);
        }
        ProbeResult refs = context.host().probe("git", "ls-remote", "--", repo, version, "refs/tags/" + version + "^{}");
        if (refs.exitCode() != 0) {
            throw new ModuleException("cannot read " + redacted(repo) + ": " + refs.stderr().strip().lines().findFirst().orElse("git ls-remote failed"));
        }
        return target(refs.stdout(), version).orElseThrow(() -> new ModuleException(
                "version '" + version + "' is neither a branch nor a tag of " + redacted(repo)
                        + (version.matches("[0-9a-f]{4,39}") ? " (give a commit as its full 40 characters)" : "")));
    }

    /** From {@code git ls-remote} output: a peeled tag first, then the tag, the branch, HEAD. */
    static Optional<Target> target(String lsRemote, String version) {
        Map<String, String> refs = new LinkedHashMap<>();
        for (String line : lsRemote.split("\n")) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 2 && f[0].matches(SHA)) {
                refs.put(f[1], f[0]);
            }
        }
        for (String ref : List.of("refs/tags/" + version + "^{}", "refs/tags/" + version)) {
            if (refs.containsKey(ref)) {
                return Optional.of(new Target(refs.get(ref), version, false));
            }
        }
        String branch = version.equals("HEAD") ? "HEAD" : "refs/heads/" + version;
        return Optional.ofNullable(refs.get(branch)).map(c -> new Target(c, version, !version.equals("HEAD")));
    }

    private static Change clone(Params params, String dest, String repo, Target target) {
        String parent = dest.contains("/") && dest.lastIndexOf('/') > 0 ? dest.substring(0, dest.lastIndexOf('/')) : "/";
        String temp = dest + ".provision-clone";
        List<String> clone = new ArrayList<>(List.of("git", "clone", "-q", "--origin", params.string("remote")));
        params.optInteger("depth").ifPresent(d -> clone.addAll(List.of("--depth", String.valueOf(d))));
        if (!target.version().equals("HEAD") && !target.version().matches(SHA)) {
            clone.addAll(List.of("--branch", target.version()));
        }
        if (params.has("single_branch") && params.bool("single_branch")) {
            clone.add("--single-branch");
        }
        clone.addAll(List.of("--", repo, temp));
        String script = String.join(" && ",
                "mkdir -p " + ShellWords.quote(parent),
                "t=" + ShellWords.quote(temp),
                "rm -rf -- \"$t\"",
                "trap 'rm -rf -- \"$t\"' EXIT",
                ShellWords.join(clone),
                ShellWords.join(List.of("git", "-C", temp, "checkout", "-q", target.commit()))
                        + (params.bool("recursive") ? " && " + ShellWords.join(List.of("git", "-C", temp, "submodule", "update", "--init", "--recursive", "-q")) : ""),
                // an empty directory at dest (allowed) goes; then the clone takes its place in one rename
                "{ [ ! -d " + ShellWords.quote(dest) + " ] || rmdir " + ShellWords.quote(dest) + "; }",
                "mv -T " + ShellWords.quote(temp) + " " + ShellWords.quote(dest));
        return new Change("clone " + redacted(repo) + " into " + dest + " at " + target.commit() + " (" + target.version() + ")",
                List.of(), List.of(new Command.Shell(script)));
    }

    private static List<String> fetch(Params params, String dest, String remote, Target target) {
        List<String> argv = new ArrayList<>(List.of("git", "-C", dest, "fetch", "-q", "--tags", remote));
        params.optInteger("depth").ifPresent(d -> argv.addAll(List.of("--depth", String.valueOf(d))));
        argv.add(target.version().equals("HEAD") || target.version().matches(SHA) ? "HEAD" : target.version());
        return argv;
    }

    private static List<String> checkout(Params params, String dest, Target target) {
        List<String> argv = new ArrayList<>(List.of("git", "-C", dest, "checkout", "-q"));
        if (params.bool("force")) {
            argv.add("--force");
        }
        if (target.branch()) {
            argv.addAll(List.of("-B", target.version()));
        }
        argv.add(target.commit());
        return argv;
    }

    private static String head(TaskContext context, String dest) throws ModuleException {
        ProbeResult r = context.host().probe("git", "-C", dest, "rev-parse", "HEAD");
        if (r.exitCode() != 0) {
            throw new ModuleException("cannot read " + dest + "'s commit: " + r.stderr().strip().lines().findFirst().orElse("git rev-parse failed"));
        }
        return r.stdout().strip();
    }

    private static Change hidingCredentials(Change change, String repo) {
        return redacted(repo).equals(repo) ? change : change.asSensitive();
    }

    /** A URL without the password or token in it ({@code https://user:TOKEN@host/...}). */
    static String redacted(String repo) {
        return repo.replaceFirst("^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@]*@", "$1***@");
    }
}
