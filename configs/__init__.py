"""The packaged run configs (YAML), installed as nefertiti_env.configs: `nefertiti configs` lists them."""
