from tests.contract.hypothesis_profiles import load_selected_profile

load_selected_profile()
