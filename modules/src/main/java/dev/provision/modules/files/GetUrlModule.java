package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code get_url} (Ansible's {@code ansible.builtin.get_url}): a file on the host downloaded from
 * an {@code http}, {@code https}, {@code ftp} or {@code file} URL by the host itself, with
 * {@code curl}. See {@link #description()} for what converged means and which parameters are
 * refused.
 *
 * <p>The one change is a script run with {@code sh -c} whose values are positional parameters only:
 * it downloads into a {@code mktemp} file beside {@code dest}, checks the checksum there, sets mode,
 * owner and group, and renames the file over {@code dest}; on any failure it removes the temp file,
 * so {@code dest} is never partial. Credentials and headers reach curl through its standard input
 * as a config file ({@code curl -K -}), never through an argument vector (which other users of the
 * host can read in {@code ps}); the change is then sensitive.
 */
public final class GetUrlModule implements TaskModule {
    private static final ParamSpec SPEC = FileAttributes.declare(ParamSpec.builder()
                    .required("url", Type.STRING)
                    .required("dest", Type.STRING)
                    .optional("checksum", Type.STRING)
                    .withDefault("force", Type.BOOL, false)
                    .withDefault("timeout", Type.INT, 10L)
                    .optional("headers", Type.MAP)
                    .optional("url_username", Type.STRING, "username")
                    .add(new ParamSpec.Param("url_password", Type.STRING, false, Optional.empty(), List.of(), List.of("password"), true))
                    .withDefault("force_basic_auth", Type.BOOL, false)
                    .withDefault("validate_certs", Type.BOOL, true)
                    .withDefault("use_proxy", Type.BOOL, true)
                    .withDefault("http_agent", Type.STRING, "ansible-httpget")
                    .refused("backup", "the download replaces dest in one rename; keep a copy with a copy task "
                            + "(remote_src: true) before this one")
                    .refused("tmp_dest", "the download goes to a temp file beside dest, so that the rename over it is atomic")
                    .refused("client_cert", "client certificates are not supported; download with a command task (curl --cert)")
                    .refused("client_key", "client certificates are not supported; download with a command task (curl --key)")
                    .refused("use_gssapi", "GSSAPI authentication is not supported; download with a command task (curl --negotiate)")
                    .refused("use_netrc", "curl is run without ~/.netrc; give url_username and url_password")
                    .refused("unredirected_headers", "curl sends headers on redirects to the same host only; "
                            + "headers cannot be withheld per name"))
            .build();

    private static final Pattern URL = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)([^?#]*)(.*)");
    private static final List<String> SCHEMES = List.of("http", "https", "ftp", "file");
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    /**
     * Positional parameters: dest, checksum tool (empty for none), expected digest, mode, owner,
     * group, url, then curl's options. curl reads its config (user agent, headers, credentials)
     * from the script's standard input. A new file gets 0666 less the umask, as Ansible's atomic
     * move gives it; an existing one keeps its mode and owner unless asked otherwise.
     */
    static final String SCRIPT = """
            dest=$1 tool=$2 want=$3 mode=$4 owner=$5 group=$6 url=$7; shift 7
            dir=${dest%/*}; [ -n "$dir" ] || dir=/
            command -v curl >/dev/null 2>&1 || { echo "get_url: curl is not installed on this host" >&2; exit 1; }
            tmp=$(mktemp "$dir/.provision-get_url-XXXXXX") || exit 1
            fail() { rm -f -- "$tmp"; exit 1; }
            trap fail HUP INT TERM PIPE
            curl -K - -fsSL "$@" -o "$tmp" --url "$url" || fail
            if [ -n "$tool" ]; then
              got=$("$tool" < "$tmp") || fail
              got=${got%% *}
              [ "$got" = "$want" ] || { echo "get_url: the download's ${tool%sum} is $got, not $want" >&2; fail; }
            fi
            if [ -e "$dest" ]; then chown --reference="$dest" -- "$tmp" 2>/dev/null || :; fi
            if [ -n "$owner" ]; then chown -- "$owner" "$tmp" || fail; fi
            if [ -n "$group" ]; then chgrp -- "$group" "$tmp" || fail; fi
            if [ -n "$mode" ]; then chmod -- "$mode" "$tmp" || fail
            elif [ -e "$dest" ]; then chmod --reference="$dest" -- "$tmp" || fail
            else chmod -- "$(printf '%o' $(( 0666 & ~$(umask) )))" "$tmp" || fail
            fi
            mv -f -T -- "$tmp" "$dest" || fail
            """;

    public GetUrlModule() {
    }

    @Override
    public String name() {
        return "get_url";
    }

    @Override
    public String description() {
        return """
                Downloads a file from an http, https, ftp or file URL to dest on the host, with the host's
                curl (the controller never sees the bytes). The download goes to a temp file beside dest,
                is checked against checksum there, gets mode/owner/group, and is renamed over dest: dest is
                never partial, and a failed download or a wrong checksum leaves it as it was.

                Converged means: dest exists and, when checksum is given, has that digest (then force does
                not matter); without checksum an existing dest is left alone unless force: yes, which
                downloads on every run and reports a change every time (Ansible compares after the
                download; provision plans before it). Only mode, owner or group differing is a change of
                those alone. A dest that is a directory takes the last segment of the URL's path as the
                file name; a URL whose path ends in '/' is refused there.

                checksum: ALGORITHM:HEX, ALGORITHM one of md5, sha1, sha224, sha256, sha384, sha512; the
                ALGORITHM:URL form is refused. timeout (seconds, default 10) bounds the connection and
                a stalled transfer, not a slow one. url_username/url_password go to curl on its standard
                input, never on its command line, and are never shown; force_basic_auth: yes sends them
                at once, otherwise only when the server asks (curl --anyauth). Credentials inside the URL
                are refused. validate_certs: no is curl -k; use_proxy: no ignores the proxy variables.
                """;
    }

    /**
     * Not host-local: the URL may be served by another host of the inventory (a head node's web
     * server, an NFS path behind {@code file://}) that an earlier task of this play fills.
     */
    @Override
    public boolean isHostLocal() {
        return false;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        HostView host = context.host();
        String url = params.string("url").strip();
        String fileName = checkUrl(url);
        Optional<Checksum> checksum = Checksum.parse(params.optString("checksum").orElse(""));
        long timeout = params.integer("timeout");
        if (timeout <= 0) {
            throw new ModuleException("timeout must be a positive number of seconds, got " + timeout);
        }
        byte[] config = curlConfig(params);
        Attributes wanted = FileAttributes.requested(params);

        String dest = FilePaths.requireAbsolute("dest", params.string("dest"));
        boolean isDirectory = dest.endsWith("/")
                || FilePaths.statFollowing(host, dest).filter(s -> s.type() == FileStat.Type.DIRECTORY).isPresent();
        if (isDirectory) {
            if (fileName.isEmpty()) {
                throw new ModuleException("dest " + dest + " is a directory and the URL " + url
                        + " names no file (its path ends in '/'): name the file in dest");
            }
            dest = FilePaths.stripTrailingSlashes(dest) + (dest.equals("/") ? "" : "/") + fileName;
        }
        String path = FilePaths.followLinks(host, dest);
        Optional<FileStat> current = host.stat(path);
        if (current.isPresent() && current.get().type() != FileStat.Type.FILE) {
            throw new ModuleException(path + " exists and is a " + FilePaths.kind(current.get()) + ", not a file");
        }
        List<String> curlOptions = curlOptions(params, timeout);
        boolean sensitive = params.has("url_password") || !params.map("headers").isEmpty();
        if (current.isEmpty()) {
            FilePaths.requireParentDirectory(host, path);
            Change change = download("download " + url + " to " + path + describeAttributes(wanted),
                    new Diff(path, "state: absent\n", "state: file\n" + checksum.map(c -> c + "\n").orElse("")),
                    path, checksum, FileAttributes.forNewFile(wanted), url, curlOptions, config, sensitive);
            return Plan.of(change);
        }
        FileStat stat = current.get();
        String attributesReason = wanted.isEmpty() ? "" : ", with " + FileAttributes.describe(wanted);
        if (checksum.isPresent()) {
            String digest = checksum.get().digestOf(host, path);
            if (digest.equals(checksum.get().hex())) {
                return FileAttributes.change(path, stat, wanted).map(Plan::of)
                        .orElseGet(() -> Plan.converged(path + " matches " + checksum.get() + attributesReason));
            }
            List<Diff> diffs = new ArrayList<>();
            diffs.add(new Diff(path, checksum.get().algorithm() + ":" + digest + "\n", checksum.get() + "\n"));
            FileAttributes.diff(path, stat, wanted).ifPresent(diffs::add);
            return Plan.of(download("download " + url + " to " + path + " (its " + checksum.get().algorithm() + " differs)",
                    diffs, path, checksum, FileAttributes.keepingCurrent(stat, wanted), url, curlOptions, config, sensitive));
        }
        if (!params.bool("force")) {
            return FileAttributes.change(path, stat, wanted).map(Plan::of)
                    .orElseGet(() -> Plan.converged(path + " exists (no checksum and force: no, so it is not downloaded again)"
                            + attributesReason));
        }
        List<Diff> diffs = new ArrayList<>();
        diffs.add(new Diff(path, "content: as downloaded before\n", "content: as " + url + " serves it now\n"));
        FileAttributes.diff(path, stat, wanted).ifPresent(diffs::add);
        return Plan.of(download("download " + url + " to " + path + " again (force: yes without checksum)", diffs, path,
                Optional.empty(), FileAttributes.keepingCurrent(stat, wanted), url, curlOptions, config, sensitive));
    }

    private static Change download(String summary, Diff diff, String path, Optional<Checksum> checksum, Attributes attributes,
                                   String url, List<String> curlOptions, byte[] config, boolean sensitive) {
        return download(summary, List.of(diff), path, checksum, attributes, url, curlOptions, config, sensitive);
    }

    private static Change download(String summary, List<Diff> diffs, String path, Optional<Checksum> checksum,
                                   Attributes attributes, String url, List<String> curlOptions, byte[] config, boolean sensitive) {
        List<String> argv = new ArrayList<>(List.of("sh", "-c", SCRIPT, "get_url", path,
                checksum.map(Checksum::tool).orElse(""), checksum.map(Checksum::hex).orElse(""),
                attributes.mode().orElse(""), attributes.owner().orElse(""), attributes.group().orElse(""), url));
        argv.addAll(curlOptions);
        Change change = new Change(summary, diffs, List.of(new Command.Exec(argv, config)));
        return sensitive ? change.asSensitive() : change;
    }

    private static String describeAttributes(Attributes attributes) {
        return attributes.isEmpty() ? "" : " (" + FileAttributes.describe(attributes) + ")";
    }

    /**
     * Checks the URL and returns the last segment of its path (empty when the path ends in '/').
     * Credentials in the URL are refused: the URL is shown in the plan, the output and {@code ps}.
     */
    static String checkUrl(String url) throws ModuleException {
        if (url.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
            throw new ModuleException("url must not hold blanks or control characters (percent-encode them): " + url);
        }
        Matcher m = URL.matcher(url);
        if (!m.matches() || !SCHEMES.contains(m.group(1).toLowerCase(Locale.ROOT))) {
            throw new ModuleException("url " + url + " is not an http, https, ftp or file URL");
        }
        String authority = m.group(2);
        if (authority.contains("@")) {
            throw new ModuleException("url must not carry credentials (user@ or user:password@): give url_username "
                    + "and url_password, which are never shown");
        }
        String path = m.group(3);
        String name = path.substring(path.lastIndexOf('/') + 1);
        if (name.equals(".") || name.equals("..")) {
            throw new ModuleException("url " + url + " ends in '" + name + "', which names no file");
        }
        return name;
    }

    /** curl's options on its command line: nothing the user wrote but a number. */
    private static List<String> curlOptions(Params params, long timeout) {
        List<String> options = new ArrayList<>(List.of("--connect-timeout", Long.toString(timeout),
                "--speed-limit", "1", "--speed-time", Long.toString(timeout)));
        if (!params.bool("validate_certs")) {
            options.add("-k");
        }
        if (!params.bool("use_proxy")) {
            options.addAll(List.of("--noproxy", "*"));
        }
        if (params.has("url_username")) {
            options.add(params.bool("force_basic_auth") ? "--basic" : "--anyauth");
        }
        return options;
    }

    /**
     * curl's config file (read from standard input, {@code -K -}): the user agent, the headers and
     * the credentials, each a quoted value. A line break in any of them would start a header or an
     * option of its own, so it is refused, without echoing a credential.
     */
    static byte[] curlConfig(Params params) throws ModuleException {
        StringBuilder config = new StringBuilder();
        config.append("user-agent = ").append(configQuote("http_agent", params.string("http_agent"))).append('\n');
        for (Map.Entry<String, Object> header : params.map("headers").entrySet()) {
            String name = header.getKey();
            if (!HEADER_NAME.matcher(name).matches()) {
                throw new ModuleException("headers: '" + name + "' is not an HTTP header name");
            }
            String value = header.getValue() == null ? "" : String.valueOf(header.getValue());
            config.append("header = ").append(configQuote("headers." + name, name + ": " + value)).append('\n');
        }
        Optional<String> user = params.optString("url_username");
        Optional<String> password = params.optString("url_password");
        if (password.isPresent() && user.isEmpty()) {
            throw new ModuleException("url_password needs url_username");
        }
        if (user.isPresent()) {
            if (user.get().contains(":")) {
                throw new ModuleException("url_username must not contain ':' (HTTP and FTP separate the password with it)");
            }
            config.append("user = ").append(configQuote("url_username/url_password", user.get() + ":" + password.orElse("")))
                    .append('\n');
        }
        return config.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A value in curl's config syntax: double quotes, with backslash and quote escaped; line breaks refused. */
    private static String configQuote(String what, String value) throws ModuleException {
        if (value.chars().anyMatch(c -> c == '\n' || c == '\r' || c == 0)) {
            throw new ModuleException(what + " must not contain a line break or a NUL character");
        }
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
