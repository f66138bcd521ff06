# Empty compiler generated dependencies file for test_allocator.
# This may be replaced when dependencies are built.
