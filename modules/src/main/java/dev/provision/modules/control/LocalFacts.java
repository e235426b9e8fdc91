package dev.provision.modules.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Ansible's local facts ({@code ansible_local.NAME}): a {@code NAME.fact} file holds JSON or INI; an
 * executable one prints JSON. As in Ansible, a fact that cannot be read becomes a string that says
 * why, and the others are still read.
 */
final class LocalFacts {
    private static final ObjectMapper JSON = new ObjectMapper();

    private LocalFacts() {
    }

    /**
     * @param how {@code file}, or {@code exec:RC} with the executable's exit status
     * @param base64 what the file holds or the executable printed
     */
    static Object value(String name, String how, String base64) {
        String text;
        try {
            byte[] bytes = Base64.getDecoder().decode(base64);
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (IllegalArgumentException | CharacterCodingException e) {
            return "error loading fact - output of " + name + ".fact is not UTF-8 text";
        }
        if (how.startsWith("exec:") && !how.equals("exec:0")) {
            return "Failure executing fact script (" + name + ".fact), rc: " + how.substring(5);
        }
        try {
            Object parsed = JSON.readValue(text, Object.class);
            if (parsed != null) {
                return parsed;
            }
        } catch (JsonProcessingException e) {
            // not JSON: a file may be INI
        }
        if (how.equals("file")) {
            Map<String, Object> ini = ini(text);
            if (ini != null) {
                return ini;
            }
        }
        return "error loading facts as JSON or ini - please check content: " + name + ".fact";
    }

    /** INI sections as mappings of their keys (values as written); null when the text is not INI. */
    static Map<String, Object> ini(String text) {
        Map<String, Object> sections = new LinkedHashMap<>();
        Map<String, Object> current = null;
        for (String raw : text.split("\n", -1)) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                current = new LinkedHashMap<>();
                sections.put(line.substring(1, line.length() - 1).strip(), current);
                continue;
            }
            int eq = line.indexOf('=');
            int colon = line.indexOf(':');
            int at = eq < 0 ? colon : colon < 0 ? eq : Math.min(eq, colon);
            if (current == null || at <= 0) {
                return null;
            }
            // Python's configparser, which Ansible reads them with, lowercases keys
            current.put(line.substring(0, at).strip().toLowerCase(java.util.Locale.ROOT), line.substring(at + 1).strip());
        }
        return sections.isEmpty() ? null : sections;
    }
}
