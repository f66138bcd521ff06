# Empty dependencies file for test_blob.
# This may be replaced when dependencies are built.
