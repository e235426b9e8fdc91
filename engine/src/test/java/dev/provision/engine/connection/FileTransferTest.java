package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class FileTransferTest {
    @Test
    void aTempFileIsCreatedWithItsModeOnlyWhereThatExposesNothingWhileItIsWritten() {
        assertEquals("133", FileTransfer.createdMask("0644"));
        assertEquals("177", FileTransfer.createdMask("600"));
        assertEquals("333", FileTransfer.createdMask("0444"));
        assertEquals("", FileTransfer.createdMask("0640"), "its group may not be the final one yet");
        assertEquals("", FileTransfer.createdMask("0755"), "execute bits: chmod");
        assertEquals("", FileTransfer.createdMask("4644"), "special bits: chmod");
        assertEquals("", FileTransfer.createdMask("u=rw,go=r"), "symbolic: chmod");
        assertEquals("", FileTransfer.createdMask(""));
    }
}
