import sys

print(f"filled {sys.argv[1]} with {sys.argv[2]}")
