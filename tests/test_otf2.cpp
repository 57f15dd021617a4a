// placeholder so CMake configures; the owner replaces this file
