package dev.provision.modules.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

class FileTreeTest {
    /** What GNU find 4.9 printed for a tree with an odd name, a symlink and a second hard link. */
    private static final String REAL = "f\0" + "644\0root\0root\0" + "1\0" + "65024\0" + "2195589\0" + "2\0we|ird name\0\0"
            + "l\0" + "777\0root\0root\0" + "4\0" + "65024\0" + "2195604\0" + "1\0l\0../x\0"
            + "d\0" + "755\0root\0root\0" + "4096\0" + "65024\0" + "2195584\0" + "2\0sub\0\0"
            + "f\0" + "644\0root\0root\0" + "1\0" + "65024\0" + "2195589\0" + "2\0sub/h\0\0";

    @Test
    void parsesEveryEntryWithAbsolutePathsInPathOrder() {
        SortedMap<String, FileStat> tree = FileTree.parse("/t", REAL);
        assertEquals(List.of("/t/l", "/t/sub", "/t/sub/h", "/t/we|ird name"), List.copyOf(tree.keySet()));
        assertEquals(new FileStat(FileStat.Type.LINK, 0777, "root", "root", 4, "../x", 65024, 2195604, 1), tree.get("/t/l"));
        assertEquals(FileStat.Type.DIRECTORY, tree.get("/t/sub").type());
        assertTrue(tree.get("/t/sub/h").sameFileAs(tree.get("/t/we|ird name")), "two names of one inode");
        assertEquals(2, tree.get("/t/sub/h").links());
    }

    @Test
    void anEmptyDirectoryListsNothing() {
        assertTrue(FileTree.parse("/t/", "").isEmpty());
    }

    @Test
    void refusesOutputThatIsNoListing() {
        assertThrows(IllegalArgumentException.class, () -> FileTree.parse("/t", "find: '/t': No such file or directory\n"));
    }

    @Test
    void statsWithoutAnInodeAreNeverTheSameFile() {
        FileStat a = new FileStat(FileStat.Type.FILE, 0644, "root", "root", 1, "");
        assertTrue(!a.sameFileAs(a));
    }
}
